package engine_test

import (
	"testing"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
)

// mustPlanAll plans reading every object (--refresh=all): what tests of
// discovery and drift plan with.
func mustPlanAll(t *testing.T, e *engine.Engine, cfg *config.Config) *plan.Plan {
	t.Helper()
	p, err := e.PlanWith(t.Context(), cfg, engine.PlanOptions{Refresh: engine.RefreshAll})
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	return p
}

// mustApplyAll applies, planning with every object read.
func mustApplyAll(t *testing.T, e *engine.Engine, cfg *config.Config) *engine.Result {
	t.Helper()
	res, err := e.Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true, Refresh: engine.RefreshAll}, nil)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if err := res.Err(); err != nil {
		t.Fatalf("apply: %v", err)
	}
	return res
}
