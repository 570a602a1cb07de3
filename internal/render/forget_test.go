package render

import (
	"testing"

	"github.com/kyku/action/internal/plan"
)

// TestPlanTextForgetInterrupted: a plan that drops interrupted creates'
// intents (--forget-interrupted) says so under its summary, beside its
// changes or alone (then no resource changes, but not "no changes" to
// apply: the state changes).
func TestPlanTextForgetInterrupted(t *testing.T) {
	with := newPlan("", change(plan.Create, "fwtest_item", "b", 0))
	with.ForgetInterrupted = []string{"b", "c[0]"}
	alone := newPlan("", change(plan.NoOp, "fwtest_item", "a", 0))
	alone.ForgetInterrupted = []string{"b"}
	for _, tt := range []struct {
		name string
		p    *plan.Plan
	}{
		{"plan_forget_interrupted.txt.golden", with},
		{"plan_forget_interrupted_alone.txt.golden", alone},
	} {
		t.Run(tt.name, func(t *testing.T) {
			golden(t, tt.name, planText(t, tt.p, TextOptions{}))
		})
	}
}
