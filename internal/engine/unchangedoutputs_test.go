package engine_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
)

// TestUnchangedOutputs: a plan lists the outputs it leaves as they are
// (no-ops, for plan --json, as OpenTofu lists them), masked where secret;
// a null output state does not hold is one of them, not a create.
func TestUnchangedOutputs(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	cfg := parse(t, outputsBefore)
	// A null output, as a Terraform configuration may have.
	cfg.Outputs = append(cfg.Outputs, &config.Output{Name: "nothing"})
	p := mustPlan(t, e, cfg)
	if diff := cmp.Diff([]plan.OutputChange{{Name: "nothing", Action: plan.NoOp}}, p.UnchangedOutputs); diff != "" {
		t.Errorf("first plan's unchanged outputs (-want +got):\n%s", diff)
	}
	for _, oc := range p.OutputChanges {
		if oc.Name == "nothing" {
			t.Errorf("a null output is planned as a change: %+v", oc)
		}
	}

	mustApply(t, e, cfg)
	p = mustPlan(t, e, cfg)
	netID := w.state().Resources["net"].ProviderID
	want := []plan.OutputChange{
		{Name: "cidr", Action: plan.NoOp, Old: "10.0.0.0/16", New: "10.0.0.0/16"},
		{Name: "kept", Action: plan.NoOp, Old: "same", New: "same"},
		{Name: "net_id", Action: plan.NoOp, Old: netID, New: netID},
		{Name: "nothing", Action: plan.NoOp},
		{Name: "pw", Action: plan.NoOp, Old: plan.Masked, New: plan.Masked, Sensitive: true},
	}
	if diff := cmp.Diff(want, p.UnchangedOutputs); diff != "" {
		t.Errorf("unchanged outputs after apply (-want +got):\n%s", diff)
	}
	if len(p.OutputChanges) != 0 {
		t.Errorf("output changes after apply: %+v", p.OutputChanges)
	}
}
