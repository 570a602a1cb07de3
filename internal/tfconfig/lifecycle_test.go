package tfconfig_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfconfig"
)

const lifecycleTF = `
variable "v" {
  default = "one"
}
resource "TP_item" "a" {
  name  = "a"
  value = var.v
}
resource "TP_item" "b" {
  name = "b"
  lifecycle {
    replace_triggered_by = [TP_item.a]
  }
}
resource "TP_item" "c" {
  count = 1
  name  = "c"
  lifecycle {
    replace_triggered_by = [TP_item.a.tags]
  }
}
resource "TP_item" "kept" {
  name = "kept"
  lifecycle {
    prevent_destroy = true
    ignore_changes  = [value]
  }
  value = var.v
}
`

// TestLifecycle: replace_triggered_by replaces what names a changed
// instance (not what names an attribute that did not change);
// ignore_changes leaves an argument as it is; prevent_destroy refuses a
// plan that destroys.
func TestLifecycle(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			w.write(map[string]string{"main.tf": head + lifecycleTF})
			w.apply(w.mustLoad(tfconfig.Inputs{}))
			cfg := w.mustLoad(tfconfig.Inputs{Vars: []tfconfig.VarArg{{Name: "v", Value: "two"}}})
			p := w.plan(cfg)
			got := map[string]string{}
			for _, c := range p.Changes {
				got[c.ResourceID] = c.Action.String()
			}
			ty := tp.Type
			want := map[string]string{ty + "_item.a": "update", ty + "_item.b": "replace", ty + "_item.c[0]": "no-op", ty + "_item.kept": "no-op"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("plan (-want +got):\n%s", diff)
			}
			if r := change(p, ty+"_item.b").Reason; !strings.Contains(r, "replace_triggered_by") {
				t.Errorf("b's reason: %q", r)
			}
			w.write(map[string]string{"main.tf": head})
			cfg = w.mustLoad(tfconfig.Inputs{})
			_, err := w.engine(cfg).PlanWith(context.Background(), cfg, planAllowingDestroyAll())
			if err == nil || !strings.Contains(err.Error(), "Resource "+ty+"_item.kept has lifecycle.prevent_destroy set") {
				t.Errorf("destroying a prevent_destroy resource: %v", err)
			}
		})
	}
}
