package engine

import (
	"testing"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// What a plan works out of each resource it asks its provider about
// costs nothing for the many resources where there is nothing to work
// out: no references read (plan.Change.References), nothing secret only
// in parts (SensitiveWithin, SecretParts).
func TestPlanOfAPlainResourceAllocatesNothingForWhatItLacks(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	props := map[string]any{"triggers": map[string]any{"cidr": "10.0.0.0/24", "labels": `{"env":"bench"}`, "name": "site-00-000"}}
	planned := map[string]any{"id": value.Unknown, "triggers": props["triggers"]}
	sensitive := []string{"triggers"} // what a provider's plan marks
	r := &config.Resource{Name: `module.site["site-00"].null_resource.node[0]`, Type: "null_resource", Properties: props}
	for name, f := range map[string]func(){
		"references": func() {
			if got := references(r.Properties, props, planned, nil); got != nil {
				t.Fatalf("references = %v, want none", got)
			}
		},
		"secretWithin": func() {
			if got := secretWithin(r, nil, nil, sensitive, nil, nil); got != nil {
				t.Fatalf("secretWithin = %v, want none", got)
			}
		},
	} {
		if n := testing.AllocsPerRun(20, f); n != 0 {
			t.Errorf("%s: %v allocations, want none", name, n)
		}
	}
}

// refuse checks the plan's changes and its destroys without copying them
// into one list (a plan of thousands of resources copied all of them).
func TestRefuseKeptDeletesCopiesNoChange(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	changes := make([]plan.Change, 1000)
	for i := range changes {
		changes[i] = plan.Change{Action: plan.Create, ResourceID: "r", Type: "null_resource"}
	}
	destroys := []plan.Change{{Action: plan.Destroy, ResourceID: "gone", Type: "null_resource"}}
	e := &Engine{}
	if n := testing.AllocsPerRun(10, func() { e.refuseKeptDeletes(nil, nil, nil, changes, destroys) }); n != 0 {
		t.Errorf("refuseKeptDeletes of 1,000 creates: %v allocations, want none", n)
	}
}
