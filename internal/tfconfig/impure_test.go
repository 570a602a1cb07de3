package tfconfig_test

import (
	"testing"
	"time"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/tfconfig"
)

// TestImpureFunctionsKnownAtApply: timestamp() is known after apply, as
// OpenTofu has it: unknown in the plan, the clock's when applying.
func TestImpureFunctionsKnownAtApply(t *testing.T) {
	w := newWorld(t, tfplugintestSDK)
	w.write(map[string]string{"main.tf": head + `
resource "TP_item" "t" {
  name  = "t"
  value = formatdate("YYYY-MM-DD", timestamp())
}
`})
	clock := func() time.Time { return time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC) }
	cfg := w.mustLoad(tfconfig.Inputs{Now: clock})
	p := w.plan(cfg)
	c := change(p, w.tp.Type+"_item.t")
	var value *plan.PropChange
	for i := range c.Properties {
		if c.Properties[i].Path == "value" {
			value = &c.Properties[i]
		}
	}
	if value == nil || !value.Unknown {
		t.Fatalf("the plan's value: %+v, want known after apply", value)
	}
	w.apply(cfg)
	if got := w.readState().Resources[w.tp.Type+"_item.t"].Outputs["value"]; got != "2031-05-06" {
		t.Errorf("value after apply %v, want the clock's date", got)
	}
}
