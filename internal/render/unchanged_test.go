package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kyku/action/internal/plan"
)

// oneTagPlan changes one tag of one resource among 300 unchanged ones.
func oneTagPlan() *plan.Plan {
	vpc := change(plan.Update, "Vpc", "main-vpc", 0, prop("tags.env", "staging", "prod"))
	vpc.ProviderID = "vpc-1"
	cs := []plan.Change{vpc}
	for i := range 300 {
		cs = append(cs, change(plan.NoOp, "Vm", fmt.Sprintf("web-%03d", i), 1))
	}
	return newPlan("prod", cs...)
}

func TestOneTagAmongUnchangedGolden(t *testing.T) {
	golden(t, "plan_one_tag.txt.golden", planText(t, oneTagPlan(), TextOptions{}))
}

// TestUnchangedCountLine: unchanged resources are one count line unless
// asked for, then one line each; a plan without any has neither.
func TestUnchangedCountLine(t *testing.T) {
	const count = "  ✓ 300 unchanged resources not shown; --show-unchanged lists them\n"
	tests := []struct {
		name      string
		p         *plan.Plan
		opts      TextOptions
		countLine bool
		listed    int
	}{
		{"default", oneTagPlan(), TextOptions{}, true, 0},
		{"--show-unchanged", oneTagPlan(), TextOptions{ShowNoOp: true}, false, 300},
		{"nothing unchanged", newPlan("prod", change(plan.Create, "Vpc", "v", 0)), TextOptions{}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := planText(t, tt.p, tt.opts)
			if strings.Contains(got, count) != tt.countLine {
				t.Errorf("count line shown %v, want %v:\n%s", !tt.countLine, tt.countLine, got)
			}
			if n := strings.Count(got, "✓ no-op "); n != tt.listed {
				t.Errorf("%d unchanged resources listed, want %d", n, tt.listed)
			}
		})
	}
	one := newPlan("prod", change(plan.Create, "Vpc", "v", 0), change(plan.NoOp, "Vm", "web", 1))
	if got := planText(t, one, TextOptions{}); !strings.Contains(got, "  ✓ 1 unchanged resource not shown; --show-unchanged lists them\n") {
		t.Errorf("one unchanged resource:\n%s", got)
	}
}
