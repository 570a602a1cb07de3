package render

import (
	"bytes"
	"testing"
	"time"

	"github.com/kyku/action/internal/plan"
)

// readsPlan changes one resource of 5,000 in state and read 3 of them;
// the untouched one shown is marked not read.
func readsPlan(refresh string, read int) *plan.Plan {
	last := time.Date(2026, 12, 5, 9, 30, 0, 0, time.UTC)
	up := change(plan.Update, "Vm", "web", 1, prop("size", "small", "large"))
	up.ProviderID = "i-42"
	same := change(plan.NoOp, "Vpc", "net", 0)
	same.ProviderID, same.NotRead, same.LastRead = "vpc-1", true, &last
	p := newPlan("prod", same, up)
	p.Reads = &plan.Reads{Refresh: refresh, Read: read, Objects: 5000}
	return p
}

// The terminal, the PR comment and plan --json say how much was read.
func TestReadsRender(t *testing.T) {
	for _, tc := range []struct {
		name, refresh string
		read          int
	}{
		{"changed", "changed", 3},
		{"all", "all", 5000},
		{"none", "none", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := readsPlan(tc.refresh, tc.read)
			var text bytes.Buffer
			if err := PlanText(&text, p, TextOptions{}); err != nil {
				t.Fatal(err)
			}
			golden(t, "reads_"+tc.name+".txt.golden", text.String())
			golden(t, "reads_"+tc.name+".md.golden", PlanComment(p, Meta{}, 65536))
			if tc.name != "changed" {
				return
			}
			var js bytes.Buffer
			if err := PlanJSON(&js, p, JSONOptions{}); err != nil {
				t.Fatal(err)
			}
			golden(t, "reads.json.golden", js.String())
		})
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 50000: "50,000", 1234567: "1,234,567", -4997: "-4,997"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
