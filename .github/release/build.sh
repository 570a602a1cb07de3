#!/usr/bin/env bash
# .github/release/build.sh — build Kyku's release assets: static binaries of
# kyku, kyku-engine, kyku-action and kyku-bot for every platform of a release, and one
# checksums.txt (sha256) over them. release.yml runs it on a version tag;
# internal/release's tests run it for the host platform.
#
#   build.sh VERSION DIR [OS/ARCH...]   build into DIR (default: every platform)
#   build.sh --platforms                print the platforms a release builds
#
# Assets are plain binaries named NAME_OS_ARCH (kyku_linux_amd64,
# kyku-action_darwin_arm64, …), without the version, so the rolling major
# release (v1) holds the same names as v1.2.3. kyku and kyku-engine (which
# kyku runs every command but version and help in, and which refuses a
# kyku of another build) are stamped alike with VERSION and the commit
# (`kyku version` prints them). Builds are CGO_ENABLED=0
# and -trimpath, as the Dockerfile's and .ci/run's.
set -euo pipefail
cd "$(dirname "$0")/../.."

platforms=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64)
# name=package: the binaries of a release.
binaries=(kyku=./cmd/kyku kyku-engine=./cmd/kyku-engine kyku-action=./cmd/action kyku-bot=./cmd/bot)

if [[ ${1:-} == --platforms ]]; then
	printf '%s\n' "${platforms[@]}"
	exit 0
fi
if (($# < 2)); then
	echo "usage: $0 VERSION DIR [OS/ARCH...] | --platforms" >&2
	exit 2
fi
version=$1 dir=$2
shift 2
if [[ ! $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$ ]]; then
	echo "build.sh: version '$version' is not vMAJOR.MINOR.PATCH" >&2
	exit 2
fi
(($#)) && platforms=("$@")
for p in "${platforms[@]}"; do
	if [[ ! $p =~ ^[a-z0-9]+/[a-z0-9]+$ ]]; then
		echo "build.sh: platform '$p' is not OS/ARCH" >&2
		exit 2
	fi
done
commit=${KYKU_COMMIT:-$(git rev-parse HEAD 2>/dev/null || true)}

mkdir -p "$dir"
for p in "${platforms[@]}"; do
	for b in "${binaries[@]}"; do
		name=${b%%=*} pkg=${b#*=}
		ldflags="-s -w"
		[[ $name == kyku || $name == kyku-engine ]] && ldflags+=" -X main.version=$version -X main.commit=$commit"
		echo "build.sh: ${name}_${p%/*}_${p#*/}" >&2
		CGO_ENABLED=0 GOOS=${p%/*} GOARCH=${p#*/} go build -trimpath -ldflags="$ldflags" \
			-o "$dir/${name}_${p%/*}_${p#*/}" "$pkg"
	done
done

# checksums.txt: sha256sum's format ("HEX  NAME"), every asset, sorted.
sum() { if command -v sha256sum >/dev/null; then sha256sum "$@"; else shasum -a 256 "$@"; fi; }
(
	cd "$dir"
	rm -f checksums.txt
	names=()
	while IFS= read -r f; do names+=("$f"); done < <(ls | LC_ALL=C sort)
	sum "${names[@]}" >checksums.txt.tmp
	mv checksums.txt.tmp checksums.txt
)
cat "$dir/checksums.txt"
