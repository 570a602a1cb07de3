package tfconfig_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfconfig"
)

const basics = `
terraform {
  required_providers {
    TP = { source = "kyku/TP" }
  }
}
provider "TP" {
  dir = "CLOUD"
}
variable "names" {
  type    = list(string)
  default = ["a", "b"]
}
locals {
  prefix = "x-${terraform.workspace}"
}
resource "TP_item" "a" {
  count = length(var.names)
  name  = "${local.prefix}-${var.names[count.index]}"
  value = upper(var.names[count.index])
}
resource "TP_item" "b" {
  for_each = toset(var.names)
  name     = "b-${each.key}"
  value    = "rev-${TP_item.a[0].revision}"
  tags     = { for i, a in TP_item.a : "a${i}" => a.name }
}
output "names" {
  value = TP_item.a[*].name
}
output "revs" {
  value = { for k, b in TP_item.b : k => b.value }
}
`

// TestPlanApplyThroughTheEngine: a .tf configuration with count,
// for_each, a for expression reading another resource's instances and a
// splat in an output plans and applies through the engine, addressed as
// OpenTofu addresses them; the plan after is empty.
func TestPlanApplyThroughTheEngine(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			w.write(map[string]string{"main.tf": basics})
			cfg := w.mustLoad(tfconfig.Inputs{})
			p := w.plan(cfg)
			want := []string{
				tp.Type + "_item.a[0] create", tp.Type + "_item.a[1] create",
				tp.Type + `_item.b["a"] create`, tp.Type + `_item.b["b"] create`,
			}
			if diff := cmp.Diff(want, actions(p)); diff != "" {
				t.Fatalf("first plan (-want +got):\n%s", diff)
			}
			res := w.apply(cfg)
			wantOut := map[string]any{
				"names": []any{"x-default-a", "x-default-b"},
				"revs":  map[string]any{"a": "rev-1", "b": "rev-1"},
			}
			if diff := cmp.Diff(wantOut, res.Outputs); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
			st := w.readState()
			b := st.Resources[tp.Type+`_item.b["b"]`]
			if b == nil {
				t.Fatalf("state has %v", st.Names())
			}
			wantTags := map[string]any{"a0": "x-default-a", "a1": "x-default-b"}
			if diff := cmp.Diff(wantTags, b.Outputs["tags"]); diff != "" {
				t.Errorf("tags from a for expression over TP_item.a (-want +got):\n%s", diff)
			}
			again := w.plan(w.mustLoad(tfconfig.Inputs{}))
			if again.HasChanges() {
				t.Errorf("plan after apply has changes: %v", actions(again))
			}
		})
	}
}
