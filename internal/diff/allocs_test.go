package diff

import (
	"testing"

	"github.com/kyku/action/internal/value"
)

// Values runs for every resource a plan asks its provider about: a
// create's changes take one allocation, the list of them (a set of their
// names and the list grown one by one took three).
func TestValuesOfACreateAllocatesItsListOnly(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	planned := map[string]any{"id": value.Unknown, "triggers": map[string]any{"cidr": "10.0.0.0/24", "name": "site-00-000"}, "empty": nil}
	var got int
	n := testing.AllocsPerRun(50, func() { got = len(Values(nil, planned, nil)) })
	if got != 2 {
		t.Fatalf("%d changes, want id and triggers", got)
	}
	if n > 1 {
		t.Errorf("Values of a create of 3 attributes: %v allocations, want 1", n)
	}
}
