package tfconfig_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/value"
)

// TestConstantRootsPerModuleInstance: the var and local objects an
// argument reads are built once per module instance only while every
// value in them is constant: each module instance's resources see that
// instance's variables, and a local that reads a resource is read again
// with each lookup.
func TestConstantRootsPerModuleInstance(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"main.tf": `
module "site" {
  source   = "./site"
  for_each = { a = "10.1.0.0/16", b = "10.2.0.0/16" }
  name     = each.key
  cidr     = each.value
}
`,
		"site/main.tf": `
variable "name" {}
variable "cidr" {}
resource "null_resource" "base" {}
locals {
  label = "${var.name}-${var.cidr}"
  read  = "${var.name}:${null_resource.base.id}"
}
resource "null_resource" "node" {
  count = 2
  triggers = {
    name  = format("%s-%d", var.name, count.index)
    label = local.label
    read  = local.read
  }
}
`,
	})
	m, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := tfconfig.Expand(m, tfconfig.Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	resolve := func(id string) map[string]any {
		t.Helper()
		got := map[string]any{}
		for _, r := range cfg.Resources {
			if r.Type != "null_resource" || r.Properties["triggers"] == nil {
				continue
			}
			v, _, err := value.ResolveChecked(r.Properties, func(ref value.Ref) (any, bool) {
				return map[string]any{"id": id + "-" + ref.Resource}, true
			})
			if err != nil {
				t.Fatalf("%s: %v", r.Name, err)
			}
			got[r.Name] = v.(map[string]any)["triggers"]
		}
		return got
	}
	want := func(id string) map[string]any {
		out := map[string]any{}
		for _, site := range []struct{ key, cidr string }{{"a", "10.1.0.0/16"}, {"b", "10.2.0.0/16"}} {
			for _, idx := range []string{"0", "1"} {
				out[`module.site["`+site.key+`"].null_resource.node[`+idx+`]`] = map[string]any{
					"name":  site.key + "-" + idx,
					"label": site.key + "-" + site.cidr,
					"read":  site.key + ":" + id + `-module.site["` + site.key + `"].null_resource.base`,
				}
			}
		}
		return out
	}
	for _, id := range []string{"first", "second"} {
		if d := cmp.Diff(want(id), resolve(id)); d != "" {
			t.Errorf("lookup %s (-want +got):\n%s", id, d)
		}
	}
}
