package tfconfig_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/tfconfig"
)

// TestCheckScopedDataSource: a data source scoped to a check block is
// read at plan (its values known) and planned to be read again during
// apply, as OpenTofu plans it (read_because_check_nested); a data source
// outside a check, read at plan, plans nothing; the apply reads it.
func TestCheckScopedDataSource(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			w.writeItem("health-1", "health", "ok")
			w.write(map[string]string{"main.tf": head + `
data "TP_item" "plain" {
  name = "health"
}
check "health" {
  data "TP_item" "health" {
    name = "health"
  }
  assert {
    condition     = data.TP_item.health.value == "ok"
    error_message = "The health item says ${data.TP_item.health.value}."
  }
}
`})
			cfg := w.mustLoad(tfconfig.Inputs{})
			p := w.plan(cfg)
			var got []string
			for _, c := range p.Changes {
				got = append(got, c.Action.String()+" "+c.ResourceID)
			}
			ty := tp.Type
			if diff := cmp.Diff([]string{"read data." + ty + "_item.health"}, got); diff != "" {
				t.Fatalf("changes (-want +got):\n%s", diff)
			}
			c := change(p, "data."+ty+"_item.health")
			if !strings.Contains(c.Reason, "check block") {
				t.Errorf("reason %q, want it to name the check block", c.Reason)
			}
			var value any
			for _, pc := range c.Properties {
				if pc.Path == "value" {
					value = pc.New
				}
			}
			if value != "ok" {
				t.Errorf("the planned read's value %v, want ok (read at plan)", value)
			}
			if res := w.apply(cfg); res == nil || c.Action != plan.Read {
				t.Errorf("apply: %+v", res)
			}
		})
	}
}
