#!/bin/sh
# Re-records the states of the roots here with a real OpenTofu:
#
#   internal/cli/testdata/tfroots/record.sh TOFU
#
# TOFU is a tofu binary (1.12.x; docs/benchmarks-tools.md says how to build
# one from its tag). The test providers (kyku/fwtest, kyku/sdktest) are
# built from internal/tfplugin/testdata/providers into a filesystem mirror
# of their own. For each root it applies the configuration in the default
# workspace and in "staging", from an empty test cloud, and keeps what
# OpenTofu left: terraform.tfstate, terraform.tfstate.d/staging/ and the
# test cloud (cloud/). The tests plan these with Kyku and want no changes.
set -eu
tofu=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
providers=$here/../../../tfplugin/testdata/providers
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for p in fwtest sdktest; do
	dir=$work/mirror/registry.opentofu.org/kyku/$p/0.1.0/$(go env GOOS)_$(go env GOARCH)
	mkdir -p "$dir"
	(cd "$providers" && GOWORK=off go build -buildvcs=false -o "$dir/terraform-provider-${p}_v0.1.0" "./$p")
done
cat >"$work/tofurc" <<RC
provider_installation {
  filesystem_mirror {
    path = "$work/mirror"
  }
}
RC
export TF_CLI_CONFIG_FILE="$work/tofurc" TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1

for root in "$here"/*/; do
	name=$(basename "$root")
	run=$work/$name
	mkdir -p "$run/cloud"
	cp "$root"/*.tf "$run/"
	(
		cd "$run"
		"$tofu" init -input=false -no-color >/dev/null
		"$tofu" apply -input=false -auto-approve -no-color >/dev/null
		"$tofu" workspace new -no-color staging >/dev/null
		"$tofu" apply -input=false -auto-approve -no-color >/dev/null
	)
	rm -rf "$root/cloud" "$root/terraform.tfstate.d"
	cp "$run/terraform.tfstate" "$root/"
	mkdir -p "$root/terraform.tfstate.d/staging"
	cp "$run/terraform.tfstate.d/staging/terraform.tfstate" "$root/terraform.tfstate.d/staging/"
	cp -r "$run/cloud" "$root/cloud"
done
