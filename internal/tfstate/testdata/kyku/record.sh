#!/bin/sh
# Re-records the states of Kyku's own types in this directory: a kyku
# apply of main.tf on the sim (kyku.tfstate, as Kyku writes it), then the
# same state as a real tofu rewrites it (tofu state mv there and back:
# kyku.tofu.tfstate) and prints it (tofu state pull: kyku.pull.tfstate).
# tofu needs no provider for these commands, only for plan and show.
#
#   KYKU=/path/to/kyku TOFU=/path/to/tofu ./record.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/main.tf" "$work/"
cd "$work"
export KYKU_SIM_DIR="$work/cloud" NO_COLOR=1 TF_CLI_CONFIG_FILE=/dev/null
"$KYKU" apply --auto-approve >/dev/null
cp terraform.tfstate "$here/kyku.tfstate"
"$TOFU" state mv terraform_data.ip terraform_data.moved >/dev/null
"$TOFU" state mv terraform_data.moved terraform_data.ip >/dev/null
cp terraform.tfstate "$here/kyku.tofu.tfstate"
"$TOFU" state pull >"$here/kyku.pull.tfstate"
