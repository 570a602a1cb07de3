#!/usr/bin/env bash
# .ci/lint-workflows.sh — lint every workflow and action.yml with actionlint
# (pinned; built into the CI cache the first time). Run by .ci/run.
#
# actionlint lints workflows, not action metadata: it checks an action.yml
# when a workflow uses it as a local action (`uses: ./`): that the file
# parses, that every `with:` names a defined input and every
# `steps.<id>.outputs.<name>` a defined output. So action.yml is linted in a
# scratch project holding it, used by the examples (rewired to `uses: ./`)
# and by a generated workflow passing every input and reading every output.
#
#   bash .ci/lint-workflows.sh             build actionlint if missing, then lint
#   bash .ci/lint-workflows.sh --install   only build it (.ci/run, while go vet runs)
set -euo pipefail
cd "$(dirname "$0")/.."

ACTIONLINT_VERSION=v1.7.12
cache=${KYKU_CI_CACHE:-$HOME/.cache/kyku-ci}
al=$cache/bin/actionlint
if [[ ! -x $al ]]; then
	echo "lint-workflows: building actionlint $ACTIONLINT_VERSION into $cache/bin" >&2
	mkdir -p "$cache/bin"
	CGO_ENABLED=0 GOFLAGS=-trimpath GOBIN=$cache/bin go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
fi
if [[ ${1:-} == --install ]]; then
	exit 0
fi
# shellcheck and pyflakes are off so the result does not depend on what
# else happens to be installed.
lint() { "$al" -shellcheck= -pyflakes= "$@"; }

lint .github/workflows/*.yml examples/workflows/*.yml

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/.github/workflows"
cp action.yml "$tmp/action.yml"
for f in examples/workflows/*.yml; do
	sed -E 's#uses: kyku/action@[^[:space:]]+#uses: ./#' "$f" >"$tmp/.github/workflows/example-$(basename "$f")"
done
# keys: the two-space-indented keys of a top-level section of action.yml.
keys() { awk -v s="$1:" '/^[^ #]/ { in_s = ($1 == s) } in_s && /^  [a-z][a-z0-9-]*:/ { sub(/:.*/, ""); sub(/^ +/, ""); print }' action.yml; }
{
	printf 'name: every-input\non: workflow_dispatch\npermissions: {}\njobs:\n  kyku:\n    runs-on: ubuntu-latest\n    steps:\n'
	printf '      - uses: actions/checkout@v4\n      - id: kyku\n        uses: ./\n        with:\n'
	for k in $(keys inputs); do printf '          %s: "x"\n' "$k"; done
	printf '      - env:\n'
	for k in $(keys outputs); do printf '          OUT_%s: ${{ steps.kyku.outputs.%s }}\n' "${k//-/_}" "$k"; done
	printf '        run: env | grep ^OUT_\n'
} >"$tmp/.github/workflows/every-input.yml"
if [[ $(keys inputs | wc -l) -lt 1 || $(keys outputs | wc -l) -lt 1 ]]; then
	echo "lint-workflows: found no inputs or outputs in action.yml" >&2
	exit 1
fi
(cd "$tmp" && git init -q . && lint)
echo "actionlint $ACTIONLINT_VERSION: workflows, examples and action.yml are clean"
