#!/bin/sh
# Re-records the state files under recorded/ with a real OpenTofu:
#
#   internal/tfstate/testdata/record.sh TOFU [MIRROR]
#
# TOFU is a tofu binary (1.12.x; docs/benchmarks-tools.md says how to build
# one from its tag). MIRROR is a filesystem provider mirror holding
# hashicorp/random, null, local, tls and time (default: none, providers come
# from the registry). For each case under tofu/ it runs the commands in the
# case's steps file in a fresh copy of the case (a line starting with "!"
# is expected to fail: the states of failed applies are cases too; one
# starting with "$" is a shell command, with $TOFU the binary), then
# keeps what OpenTofu left:
#
#   recorded/CASE.tfstate         terraform.tfstate (the local backend's indented form)
#   recorded/CASE.remote.tfstate  the compact form remote backends store: tofu
#                                 state pull, less the newline its output adds
#   recorded/CASE.backup.tfstate  terraform.tfstate.backup, when written (compact)
#
# and, for each hand-written state handmade/NAME.in.tfstate (fields no case
# above makes OpenTofu write), what OpenTofu writes back after reading it:
#
#   handmade/NAME.tofu.tfstate    tofu state pull of it, less its newline
set -eu
tofu=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mirror=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -n "$mirror" ]; then
	cat >"$work/tofurc" <<RC
provider_installation {
  filesystem_mirror {
    path = "$mirror"
  }
}
RC
	TF_CLI_CONFIG_FILE=$work/tofurc
else
	TF_CLI_CONFIG_FILE=/dev/null
fi
export TF_CLI_CONFIG_FILE TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1 TOFU="$tofu"
unset TF_WORKSPACE TF_DATA_DIR

mkdir -p "$here/recorded"
for dir in "$here"/tofu/*/; do
	name=$(basename "$dir")
	echo "== $name"
	cp -R "$dir" "$work/$name"
	(
		cd "$work/$name"
		"$tofu" init -input=false -no-color >/dev/null
		while IFS= read -r step; do
			case "$step" in
			'$'*)
				sh -c "${step#?}"
				;;
			'!'*)
				# shellcheck disable=SC2086 # the step's words are arguments
				if "$tofu" ${step#?} -input=false -no-color >log 2>&1; then
					echo "$name: expected to fail: ${step#?}" >&2
					exit 1
				fi
				;;
			*)
				# shellcheck disable=SC2086
				"$tofu" $step -input=false -no-color >log 2>&1 || { cat log >&2; exit 1; }
				;;
			esac
		done <steps
		cp terraform.tfstate "$here/recorded/$name.tfstate"
		"$tofu" state pull >pulled
		head -c "$(($(wc -c <pulled) - 1))" pulled >"$here/recorded/$name.remote.tfstate"
		if [ -f terraform.tfstate.backup ]; then
			cp terraform.tfstate.backup "$here/recorded/$name.backup.tfstate"
		else
			rm -f "$here/recorded/$name.backup.tfstate"
		fi
	)
done

for in in "$here"/handmade/*.in.tfstate; do
	name=$(basename "$in" .in.tfstate)
	echo "== handmade/$name"
	mkdir "$work/handmade-$name"
	cp "$in" "$work/handmade-$name/terraform.tfstate"
	(
		cd "$work/handmade-$name"
		"$tofu" state pull >pulled
		head -c "$(($(wc -c <pulled) - 1))" pulled >"$here/handmade/$name.tofu.tfstate"
	)
done
