#!/usr/bin/env bash
# .ci/act-e2e.sh — install nektos/act (pinned) into the CI cache for the
# end-to-end tests that run workflows against action.yml with a real runner
# implementation: examples/workflows/kyku.yml (cmd/action
# TestActRunsTheExampleWorkflow) and the bot's dispatches of
# examples/workflows/kyku-dispatch.yml (cmd/bot
# TestDispatchedWorkflowRunsInAct). Both are part of `go test ./...` and
# fail under CI=true when act is missing.
#
#   bash .ci/act-e2e.sh          install act if missing (a cold build takes a few minutes)
#   bash .ci/act-e2e.sh --run    install, then run only those tests
set -euo pipefail
cd "$(dirname "$0")/.."

ACT_VERSION=v0.2.89
cache=${KYKU_CI_CACHE:-$HOME/.cache/kyku-ci}
if [[ ! -x $cache/bin/act ]]; then
	echo "act-e2e: building nektos/act $ACT_VERSION into $cache/bin" >&2
	mkdir -p "$cache/bin"
	CGO_ENABLED=0 GOFLAGS=-trimpath GOBIN=$cache/bin go install "github.com/nektos/act@$ACT_VERSION"
fi
if [[ ${1:-} == --run ]]; then
	KYKU_CI_CACHE=$cache go test -count=1 -run '^TestActRunsTheExampleWorkflow$' -v ./cmd/action
	KYKU_CI_CACHE=$cache go test -count=1 -run '^TestDispatchedWorkflowRunsInAct$' -v ./cmd/bot
fi
