#!/usr/bin/env bash
# .ci/staticcheck.sh — staticcheck (pinned; built into the CI cache the
# first time) over Kyku's module and the test providers' module
# (internal/tfplugin/testdata/providers, a module of its own). Run by
# .ci/run after go vet. A finding fails the run; a finding kept on purpose
# carries a `//lint:ignore CHECK reason` on the line before it.
#
# With vet's build settings (CGO_ENABLED=0, -trimpath): staticcheck
# loads every package through `go list -export`, which compiles it; with
# the settings vet compiled with, that is vet's compile, found in Go's
# build cache, and the files checked are the ones the shipped builds
# compile. Its own analysis results are cached apart (STATICCHECK_CACHE,
# default ~/.cache/staticcheck), so a warm run only analyses what changed.
#
#   bash .ci/staticcheck.sh             build if missing, then check
#   bash .ci/staticcheck.sh --install   only build it (.ci/run, while go vet runs)
set -euo pipefail
cd "$(dirname "$0")/.."

STATICCHECK_VERSION=v0.8.2
cache=${KYKU_CI_CACHE:-$HOME/.cache/kyku-ci}
sc=$cache/bin/staticcheck
# `staticcheck -version` prints "staticcheck 2026.2.2 (0.8.2)": the module
# version in parentheses tells a cached build of another pin.
if [[ ! -x $sc || $("$sc" -version) != *"(${STATICCHECK_VERSION#v})"* ]]; then
	echo "staticcheck: building $STATICCHECK_VERSION into $cache/bin" >&2
	mkdir -p "$cache/bin"
	CGO_ENABLED=0 GOFLAGS=-trimpath GOBIN=$cache/bin go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
fi
if [[ ${1:-} == --install ]]; then
	exit 0
fi

export CGO_ENABLED=0 GOFLAGS="$(go env GOFLAGS) -trimpath"
"$sc" ./...
(cd internal/tfplugin/testdata/providers && GOWORK=off "$sc" ./...)
echo "staticcheck $STATICCHECK_VERSION: Kyku and the test providers are clean"
