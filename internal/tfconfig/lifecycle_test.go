package tfconfig_test

import (
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
			_, err := w.engine(cfg).PlanWith(t.Context(), cfg, planAllowingDestroyAll())
			if err == nil || !strings.Contains(err.Error(), "Resource instance "+ty+"_item.kept had prevent_destroy set when last applied, and the configuration no longer has it") {
				t.Errorf("destroying a prevent_destroy resource: %v", err)
			}
		})
	}
}

// TestConditions: a precondition reading another resource and a
// postcondition reading self are checked by the plan once what they read
// is known; one not known yet passes.
func TestConditions(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			text := head + `
variable "want" {
  default = "ok"
}
resource "TP_item" "a" {
  name  = "a"
  value = var.want
}
resource "TP_item" "b" {
  name = "b"
  lifecycle {
    precondition {
      condition     = TP_item.a.value == "ok"
      error_message = "a's value must be ok, not ${TP_item.a.value}."
    }
    postcondition {
      condition     = self.name == "b"
      error_message = "b is misnamed."
    }
  }
}
`
			w.write(map[string]string{"main.tf": text})
			w.apply(w.mustLoad(tfconfig.Inputs{}))
			cfg := w.mustLoad(tfconfig.Inputs{Vars: []tfconfig.VarArg{{Name: "want", Value: "bad"}}})
			_, err := w.engine(cfg).Plan(t.Context(), cfg)
			if err == nil || !strings.Contains(err.Error(), "main.tf:21:23: Resource precondition failed: a's value must be ok, not bad.") {
				t.Errorf("plan with a failing precondition: %v", err)
			}
			w.write(map[string]string{"main.tf": strings.Replace(text, `self.name == "b"`, `self.name == "c"`, 1)})
			cfg = w.mustLoad(tfconfig.Inputs{})
			_, err = w.engine(cfg).Plan(t.Context(), cfg)
			if err == nil || !strings.Contains(err.Error(), "Resource postcondition failed: b is misnamed.") {
				t.Errorf("plan with a failing postcondition: %v", err)
			}
		})
	}
}

// TestReplaceTriggeredByPath: an entry naming a path inside an attribute
// replaces only when the value there changes, as OpenTofu judges it, not
// whenever the attribute holding it does.
func TestReplaceTriggeredByPath(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			w.write(map[string]string{"main.tf": head + `
variable "v" {
  default = "one"
}
resource "TP_item" "a" {
  name = "a"
  tags = { version = var.v, note = "same" }
}
resource "TP_item" "by_version" {
  name = "by_version"
  lifecycle {
    replace_triggered_by = [TP_item.a.tags.version]
  }
}
resource "TP_item" "by_note" {
  name = "by_note"
  lifecycle {
    replace_triggered_by = [TP_item.a.tags["note"]]
  }
}
`})
			w.apply(w.mustLoad(tfconfig.Inputs{}))
			p := w.plan(w.mustLoad(tfconfig.Inputs{Vars: []tfconfig.VarArg{{Name: "v", Value: "two"}}}))
			got := map[string]string{}
			for _, c := range p.Changes {
				got[c.ResourceID] = c.Action.String()
			}
			ty := tp.Type
			want := map[string]string{ty + "_item.a": "update", ty + "_item.by_version": "replace", ty + "_item.by_note": "no-op"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("plan (-want +got):\n%s", diff)
			}
			if r, want := change(p, ty+"_item.by_version").Reason, "replacement triggered by "+ty+"_item.a.tags.version"; !strings.Contains(r, want) {
				t.Errorf("by_version's reason %q, want it to hold %q", r, want)
			}
		})
	}
}
