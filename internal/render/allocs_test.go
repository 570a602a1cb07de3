package render

import (
	"io"
	"testing"

	"github.com/kyku/action/internal/plan"
)

// A create's map of strings (a null_resource's triggers) is shown as a
// block of its entries; each entry is rendered once, and the map is never
// rendered whole as one line only to learn that it is no heredoc (which
// copied it and marshalled it as JSON: an apply of 5,000 such resources
// spent a third of its plan text's CPU on it).
func TestCreateBlockRendersEntriesOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	c := change(plan.Create, "null_resource", `module.site["site-00"].null_resource.node[0]`, 0,
		prop("id", nil, "(known after apply)"),
		prop("triggers", nil, map[string]any{"cidr": "10.0.0.0/24", "labels": `{"env":"bench","owner":"platform"}`, "name": "site-00-000"}))
	c.Properties[0].Unknown = true
	p := newPlan("", c)
	allocs := testing.AllocsPerRun(20, func() {
		if err := PlanText(io.Discard, p, TextOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%v allocations", allocs)
	if allocs > maxCreateAllocs {
		t.Errorf("the plan text of one create of a map of three strings: %v allocations, want at most %d", allocs, maxCreateAllocs)
	}
}

// maxCreateAllocs is 27 and a margin of one (it was 63 when each entry was rendered
// twice and the map once more, whole, and each made its path).
const maxCreateAllocs = 28
