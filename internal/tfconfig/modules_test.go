package tfconfig_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/tfconfig"
)

// A module with for_each, inputs and outputs, calling a nested module,
// its provider passed in; what reads the modules' outputs reads their
// resources' values.
var moduleFiles = map[string]string{
	"main.tf": head + `
provider "TP" {
  alias = "other"
  dir   = "CLOUD"
}
variable "nets" {
  default = { eu = "10.0.0.0/16", us = "10.1.0.0/16" }
}
module "net" {
  source   = "./modules/net"
  for_each = var.nets
  name     = each.key
  cidr     = each.value
  providers = {
    TP = TP.other
  }
}
resource "TP_item" "summary" {
  name  = "summary"
  value = join(",", [for k, m in module.net : "${k}=${m.first_subnet}"])
}
output "subnets" {
  value = { for k, m in module.net : k => m.subnets }
}
`,
	"modules/net/main.tf": `
terraform {
  required_providers {
    TP = { source = "kyku/TP" }
  }
}
variable "name" {
  type = string
}
variable "cidr" {
  type = string
}
resource "TP_item" "subnet" {
  count = 2
  name  = "${var.name}-${count.index}"
  value = cidrsubnet(var.cidr, 8, count.index)
}
module "tag" {
  source = "./tag"
  of     = TP_item.subnet[0].name
}
output "subnets" {
  value = TP_item.subnet[*].value
}
output "first_subnet" {
  value = module.tag.tagged
}
`,
	"modules/net/tag/main.tf": `
variable "of" {
  type = string
}
resource "TP_item" "tag" {
  name  = "tag-${var.of}"
}
output "tagged" {
  value = TP_item.tag.name
}
`,
}

func TestModules(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			w.write(moduleFiles)
			cfg := w.mustLoad(tfconfig.Inputs{})
			ty := tp.Type
			var names []string
			for _, r := range cfg.Resources {
				names = append(names, r.Name+" "+r.Type)
			}
			wantNames := []string{
				`module.net["eu"].` + ty + `_item.subnet[0] ` + ty + `-other_item`,
				`module.net["eu"].` + ty + `_item.subnet[1] ` + ty + `-other_item`,
				`module.net["eu"].module.tag.` + ty + `_item.tag ` + ty + `-other_item`,
				`module.net["us"].` + ty + `_item.subnet[0] ` + ty + `-other_item`,
				`module.net["us"].` + ty + `_item.subnet[1] ` + ty + `-other_item`,
				`module.net["us"].module.tag.` + ty + `_item.tag ` + ty + `-other_item`,
				ty + `_item.summary ` + ty + `_item`,
			}
			slices.Sort(wantNames)
			slices.Sort(names)
			if diff := cmp.Diff(wantNames, names); diff != "" {
				t.Fatalf("resources (-want +got):\n%s", diff)
			}
			res := w.apply(cfg)
			want := map[string]any{"subnets": map[string]any{
				"eu": []any{"10.0.0.0/24", "10.0.1.0/24"},
				"us": []any{"10.1.0.0/24", "10.1.1.0/24"},
			}}
			if diff := cmp.Diff(want, res.Outputs); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
			sum := w.readState().Resources[ty+"_item.summary"]
			if sum == nil || sum.Outputs["value"] != "eu=tag-eu-0,us=tag-us-0" {
				t.Errorf("summary read through two modules' outputs: %+v", sum)
			}
			if again := w.plan(w.mustLoad(tfconfig.Inputs{})); again.HasChanges() {
				t.Errorf("plan after apply: %v", actions(again))
			}

			// --target a module instance: its resources and what they need.
			w.write(map[string]string{"main.tf": moduleFiles["main.tf"], "modules/net/main.tf": moduleFiles["modules/net/main.tf"],
				"modules/net/tag/main.tf": `
variable "of" {
  type = string
}
resource "TP_item" "tag" {
  name  = "tag-${var.of}"
  value = "changed"
}
output "tagged" {
  value = TP_item.tag.name
}
`})
			cfg = w.mustLoad(tfconfig.Inputs{})
			p, err := w.engine(cfg).PlanWith(context.Background(), cfg, engine.PlanOptions{Targets: []string{`module.net["us"]`}})
			if err != nil {
				t.Fatal(err)
			}
			var changed []string
			for _, c := range p.Changes {
				if c.Action.String() != "no-op" {
					changed = append(changed, c.ResourceID+" "+c.Action.String())
				}
			}
			if diff := cmp.Diff([]string{`module.net["us"].module.tag.` + ty + `_item.tag update`}, changed); diff != "" {
				t.Errorf("--target module.net[\"us\"] (-want +got):\n%s", diff)
			}

			// kyku state rm of a module instance: every resource in it.
			sc, err := w.engine(cfg).StateRemove(context.Background(), `module.net["eu"]`)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(sc.Names)
			wantGone := []string{`module.net["eu"].` + ty + `_item.subnet[0]`, `module.net["eu"].` + ty + `_item.subnet[1]`, `module.net["eu"].module.tag.` + ty + `_item.tag`}
			slices.Sort(wantGone)
			if diff := cmp.Diff(wantGone, sc.Names); diff != "" {
				t.Errorf("state rm module.net[\"eu\"] (-want +got):\n%s", diff)
			}
		})
	}
}
