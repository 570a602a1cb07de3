#!/bin/sh
# install.sh — install kyku from a release, without Go (docs/install.md):
#
#   curl -fsSL https://raw.githubusercontent.com/kyku/action/v1/cmd/kyku/install.sh | sh
#   curl -fsSL https://raw.githubusercontent.com/kyku/action/v1/cmd/kyku/install.sh | sh -s -- v1.2.3
#
# It picks the release assets kyku_<linux|darwin>_<amd64|arm64> and
# kyku-engine_<…> for this machine (kyku runs every command but version and
# help in the kyku-engine beside it), downloads them and the release's
# checksums.txt, checks each asset's sha256 (a mismatch deletes the
# download and installs nothing), and installs them as kyku and
# kyku-engine in $KYKU_INSTALL_DIR (default ~/.local/bin).
#
#   VERSION (first argument, or $KYKU_VERSION): vX.Y.Z, vX (the newest
#           vX.*) or latest (the default).
#   KYKU_RELEASES_URL: where releases are (default
#           https://github.com/kyku/action/releases): assets are fetched
#           from $KYKU_RELEASES_URL/download/VERSION/ and, for latest,
#           $KYKU_RELEASES_URL/latest/download/.
#
# POSIX sh; needs curl or wget, and sha256sum or shasum.
# Tested by internal/release (TestInstaller*).
set -eu

releases=${KYKU_RELEASES_URL:-https://github.com/kyku/action/releases}
version=${1:-${KYKU_VERSION:-latest}}
docs=https://github.com/kyku/action/blob/main/docs/install.md

say() { printf 'kyku install: %s\n' "$*"; }
fail() {
	printf 'kyku install: %s\n' "$*" >&2
	exit 1
}

case $version in
latest) base=$releases/latest/download ;;
v[0-9]*[!0-9A-Za-z.+-]* | v[!0-9]*) fail "'$version' is not a version: give vX.Y.Z, vX or latest" ;;
v[0-9]*) base=$releases/download/$version ;;
*) fail "'$version' is not a version: give vX.Y.Z, vX or latest" ;;
esac

os=$(uname -s)
case $os in
Linux) os=linux ;;
Darwin) os=darwin ;;
*) fail "no kyku release for $os (Linux and macOS only): build it from source, see $docs" ;;
esac
arch=$(uname -m)
case $arch in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) fail "no kyku release for $arch processors (amd64 and arm64 only): build it from source, see $docs" ;;
esac
asset=kyku_${os}_$arch
engine=kyku-engine_${os}_$arch

if command -v curl >/dev/null 2>&1; then
	fetch() { curl -fsSL --retry 3 -o "$2" "$1" 2>/dev/null; }
elif command -v wget >/dev/null 2>&1; then
	fetch() { wget -q -O "$2" "$1"; }
else
	fail "needs curl or wget to download kyku"
fi
if command -v sha256sum >/dev/null 2>&1; then
	sha256() { sha256sum "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then
	sha256() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
else
	fail "needs sha256sum or shasum to check the download"
fi

dir=${KYKU_INSTALL_DIR:-${HOME:?set HOME or KYKU_INSTALL_DIR}/.local/bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fetch "$base/$asset" "$tmp/$asset" ||
	fail "no $asset in release $version ($base/$asset): see the releases at $releases"
fetch "$base/checksums.txt" "$tmp/checksums.txt" ||
	fail "no checksums.txt in release $version ($base/checksums.txt): refusing an unchecked download"
# check NAME: the download NAME's sha256 is the one checksums.txt lists.
check() {
	want=$(awk -v n="$1" '$2 == n || $2 == "*" n { print $1; exit }' "$tmp/checksums.txt")
	got=$(sha256 "$tmp/$1")
	if [ -z "$want" ]; then
		rm -f "$tmp/$1"
		fail "checksums.txt of release $version lists no $1: deleted the download, installed nothing"
	fi
	if [ "$got" != "$want" ]; then
		rm -f "$tmp/$1"
		fail "$1 of release $version does not match checksums.txt (sha256 $got, want $want): deleted the download, installed nothing"
	fi
}
check "$asset"
kyku_sum=$got
fetch "$base/$engine" "$tmp/$engine" ||
	fail "no $engine in release $version ($base/$engine): see the releases at $releases"
check "$engine"
engine_sum=$got

mkdir -p "$dir" || fail "cannot create $dir: set KYKU_INSTALL_DIR to a directory you can write"
chmod 755 "$tmp/$asset" "$tmp/$engine"
# Copied next to the target, then renamed over it: a running kyku or an
# interrupted install never sees half a file. kyku-engine first: a kyku
# refuses, without running it, a kyku-engine of another build beside it.
cp "$tmp/$engine" "$dir/.kyku-engine.new.$$" || fail "cannot write into $dir: set KYKU_INSTALL_DIR to a directory you can write"
cp "$tmp/$asset" "$dir/.kyku.new.$$" || {
	rm -f "$dir/.kyku-engine.new.$$"
	fail "cannot write into $dir: set KYKU_INSTALL_DIR to a directory you can write"
}
mv -f "$dir/.kyku-engine.new.$$" "$dir/kyku-engine"
mv -f "$dir/.kyku.new.$$" "$dir/kyku"
say "installed $asset of release $version as $dir/kyku (sha256 $kyku_sum, as checksums.txt says)"
say "installed $engine of release $version as $dir/kyku-engine (sha256 $engine_sum, as checksums.txt says)"
ran=$("$dir/kyku" version 2>&1 | head -n 1) || true
case $ran in
kyku\ *) say "$dir/kyku version: $ran" ;;
*) fail "$dir/kyku does not run here: $ran" ;;
esac
case :${PATH:-}: in
*:"$dir":*) ;;
*) say "$dir is not on your PATH: add it, e.g. export PATH=\"$dir:\$PATH\"" ;;
esac
