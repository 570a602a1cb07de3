#!/usr/bin/env bash
# install.sh — put the kyku-action binary on the runner, fast. action.yml
# runs it as its first step and reads the step output `binary`.
#
#  1. KYKU_ACTION_BINARY, when set, is used as is (tests, nektos/act, a
#     self-hosted runner with the binary baked in).
#  2. Else the release asset kyku-action_linux_<amd64|arm64> of the
#     action's ref (KYKU_ACTION_REF), verified against the release's
#     checksums.txt (sha256), from
#     $GITHUB_SERVER_URL/<KYKU_ACTION_REPOSITORY>/releases/download/<tag>/:
#     - a tag (v1, v1.2.3): that tag's release;
#     - a commit SHA (uses: kyku/action@<sha>): the release of a tag that
#       points at that commit, found with the tags API
#       ($GITHUB_API_URL/repos/<repo>/tags, with KYKU_ACTION_TOKEN when
#       set), vX.Y.Z tags before the moving vX.
#     A release whose asset does not match its checksums.txt is refused.
#  3. Else (a branch, a commit no release was made from), a ::notice:: says
#     so and `go build` builds it from the action's own source, when Go is
#     installed: correct, but slow.
set -euo pipefail

out=${GITHUB_OUTPUT:-/dev/stdout}

if [[ -n ${KYKU_ACTION_BINARY:-} ]]; then
	if [[ ! -x $KYKU_ACTION_BINARY ]]; then
		echo "::error::KYKU_ACTION_BINARY=$KYKU_ACTION_BINARY is not an executable file"
		exit 1
	fi
	echo "binary=$KYKU_ACTION_BINARY" >>"$out"
	exit 0
fi

if [[ $(uname -s) != Linux ]]; then
	echo "::error::Kyku's Action runs on Linux runners (this one is $(uname -s))"
	exit 1
fi
case $(uname -m) in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*)
	echo "::error::no kyku-action build for $(uname -m) (amd64 and arm64 only)"
	exit 1
	;;
esac

dir=${RUNNER_TEMP:-/tmp}/kyku-action
mkdir -p "$dir"
bin=$dir/kyku-action
asset=kyku-action_linux_$arch
# github.action_ref is empty in some runners' composite steps: fall back to
# GITHUB_ACTION_REF, then to the checkout path .../_actions/<owner>/<repo>/<ref>.
ref=${KYKU_ACTION_REF:-${GITHUB_ACTION_REF:-}}
repo=${KYKU_ACTION_REPOSITORY:-${GITHUB_ACTION_REPOSITORY:-}}
if [[ ${GITHUB_ACTION_PATH:-} =~ /_actions/([^/]+)/([^/]+)/([^/]+)$ ]]; then
	ref=${ref:-${BASH_REMATCH[3]}}
	repo=${repo:-${BASH_REMATCH[1]}/${BASH_REMATCH[2]}}
fi
repo=${repo:-kyku/action}
server=${GITHUB_SERVER_URL:-https://github.com}

# download TAG: the asset of release TAG, checked against its checksums.txt
# (1: the release has no such asset; exit: it does not match).
download() {
	local base=$server/$repo/releases/download/$1
	curl -fsSL --retry 3 --retry-delay 2 -o "$dir/$asset" "$base/$asset" 2>/dev/null &&
		curl -fsSL --retry 3 --retry-delay 2 -o "$dir/checksums.txt" "$base/checksums.txt" 2>/dev/null || return 1
	if ! (cd "$dir" && grep -q " $asset\$" checksums.txt && grep " $asset\$" checksums.txt | sha256sum -c --status -); then
		rm -f "$dir/$asset"
		echo "::error::$asset from release $1 does not match its checksums.txt: refusing to run it"
		exit 1
	fi
	chmod +x "$dir/$asset"
	mv "$dir/$asset" "$bin"
}

# tags_at SHA: the release tags pointing at commit SHA, vX.Y.Z before vX,
# from the tags API (a page of 100 at a time; 1 when it cannot be read).
tags_at() {
	local api=${GITHUB_API_URL:-https://api.github.com} page json found=() auth=()
	[[ -n ${KYKU_ACTION_TOKEN:-} ]] && auth=(-H "Authorization: Bearer $KYKU_ACTION_TOKEN")
	for ((page = 1; page <= 20; page++)); do
		json=$(curl -fsSL --retry 3 --retry-delay 2 "${auth[@]}" -H "Accept: application/vnd.github+json" \
			"$api/repos/$repo/tags?per_page=100&page=$page" 2>/dev/null) || return 1
		# Each tag is an object with one "name" and one "sha" (its commit's).
		mapfile -t -O "${#found[@]}" found < <(grep -oE '"(name|sha)"[[:space:]]*:[[:space:]]*"[^"]*"' <<<"$json" |
			awk -F'"' -v want="$1" '$2 == "name" { n = $4 } $2 == "sha" { s = $4 } n != "" && s != "" { if (s == want) print n; n = s = "" }')
		grep -q '"name"' <<<"$json" || break
	done
	# Only the tags releases are made for: vX.Y.Z, then the moving vX.
	printf '%s\n' "${found[@]}" | grep -E '^v[0-9]+\.[0-9]+\.[0-9]+$' || true
	printf '%s\n' "${found[@]}" | grep -E '^v[0-9]+$' || true
}

from=
if [[ $ref =~ ^[0-9a-f]{40}$ ]]; then
	if tags=$(tags_at "$ref"); then
		for tag in $tags; do
			if download "$tag"; then
				from=$tag
				break
			fi
		done
		why="no release tag points at commit $ref"
	else
		why="could not list $repo's tags to find a release of commit $ref"
	fi
elif [[ -n $ref ]] && download "$ref"; then
	from=$ref
else
	why="no release for ref '${ref:-?}'"
fi

if [[ -n $from ]]; then
	if [[ $from == "$ref" ]]; then
		echo "kyku-action $ref ($arch) from the release"
	else
		echo "kyku-action $ref ($arch) from the release $from (tag $from points at $ref)"
	fi
elif command -v go >/dev/null 2>&1; then
	echo "::notice::kyku-action: $why: building it from source with Go (slow; pin a released tag such as @v1, or a commit a release was made from)"
	src=${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/../.." && pwd)}
	(cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$bin" ./cmd/action)
else
	echo "::error::kyku-action: $why, and no Go toolchain to build it from source: use a released tag (e.g. kyku/action@v1)"
	exit 1
fi
echo "binary=$bin" >>"$out"
