package tfconfig_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/tfconfig"
)

const head = `terraform {
  required_providers {
    TP = { source = "kyku/TP" }
  }
}
provider "TP" {
  dir = "CLOUD"
}
`

// TestMovedRemovedImport: a moved block renames what state holds
// (instances of a whole resource included) without destroying anything;
// a removed block with destroy = false forgets an object, which stays in
// the cloud; import blocks with for_each adopt objects made by hand.
func TestMovedRemovedImport(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			w.write(map[string]string{"main.tf": head + `
resource "TP_item" "old" {
  count = 2
  name  = "n${count.index}"
}
resource "TP_item" "gone" {
  name = "gone"
}
`})
			w.apply(w.mustLoad(tfconfig.Inputs{}))
			w.writeItem("hand-1", "h1", "x")
			w.writeItem("hand-2", "h2", "y")

			w.write(map[string]string{"main.tf": head + `
resource "TP_item" "new" {
  count = 2
  name  = "n${count.index}"
}
moved {
  from = TP_item.old
  to   = TP_item.new
}
removed {
  from = TP_item.gone
  lifecycle {
    destroy = false
  }
}
locals {
  hand = { h1 = "hand-1", h2 = "hand-2" }
}
resource "TP_item" "hand" {
  for_each = local.hand
  name     = each.key
  value    = "adopted"
}
import {
  for_each = local.hand
  to       = TP_item.hand[each.key]
  id       = each.value
}
`})
			cfg := w.mustLoad(tfconfig.Inputs{})
			p := w.plan(cfg)
			got := map[string]string{}
			for _, c := range p.Changes {
				got[c.ResourceID] = c.Action.String()
			}
			want := map[string]string{
				tp.Type + "_item.new[0]": "move", tp.Type + "_item.new[1]": "move",
				tp.Type + "_item.gone":       "forget",
				tp.Type + `_item.hand["h1"]`: "import", tp.Type + `_item.hand["h2"]`: "import",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("plan (-want +got):\n%s", diff)
			}
			if c := change(p, tp.Type+"_item.gone"); c.Action != plan.Forget {
				t.Errorf("gone: %v", c.Action)
			}
			w.apply(cfg)
			st := w.readState()
			if st.Resources[tp.Type+"_item.gone"] != nil || st.Resources[tp.Type+"_item.old[0]"] != nil {
				t.Errorf("state still has the forgotten or the moved: %v", st.Names())
			}
			items, _ := filepath.Glob(filepath.Join(w.cloud, "*.json"))
			if len(items) != 5 {
				t.Errorf("the cloud has %d items, want 5 (2 moved, 1 forgotten, 2 imported): nothing is destroyed", len(items))
			}
			if again := w.plan(w.mustLoad(tfconfig.Inputs{})); again.HasChanges() {
				t.Errorf("plan after apply: %v", actions(again))
			}
		})
	}
}
