#!/usr/bin/env bash
# install.sh — put the kyku-action binary on the runner, fast. action.yml
# runs it as its first step and reads the step output `binary`.
#
#  1. KYKU_ACTION_BINARY, when set, is used as is (tests, nektos/act, a
#     self-hosted runner with the binary baked in).
#  2. Else the release asset for the action's ref (KYKU_ACTION_REF, e.g. v1
#     or v1.2.3): kyku-action_linux_<amd64|arm64> from
#     $GITHUB_SERVER_URL/<KYKU_ACTION_REPOSITORY>/releases/download/<ref>/,
#     verified against the release's checksums.txt (sha256).
#  3. Else, when Go is installed (a ref without a release: a branch or a
#     SHA), `go build` from the action's own source: correct, but slow.
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

download() {
	local base=$server/$repo/releases/download/$ref
	curl -fsSL --retry 3 --retry-delay 2 -o "$dir/$asset" "$base/$asset" &&
		curl -fsSL --retry 3 --retry-delay 2 -o "$dir/checksums.txt" "$base/checksums.txt" || return 1
	if ! (cd "$dir" && grep " $asset\$" checksums.txt | sha256sum -c --status -); then
		rm -f "$dir/$asset"
		echo "::error::$asset from release $ref does not match its checksums.txt: refusing to run it"
		exit 1
	fi
	chmod +x "$dir/$asset"
	mv "$dir/$asset" "$bin"
}

if [[ -n $ref ]] && download; then
	echo "kyku-action $ref ($arch) from the release"
elif command -v go >/dev/null 2>&1; then
	echo "::warning::no kyku-action release for ref '${ref:-?}': building it with Go (slow; use a released tag such as @v1)"
	src=${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/../.." && pwd)}
	(cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$bin" ./cmd/action)
else
	echo "::error::no kyku-action release for ref '${ref:-?}' and no Go toolchain to build it: use a released tag (e.g. kyku/action@v1)"
	exit 1
fi
echo "binary=$bin" >>"$out"
