package engine_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/engine"
)

// A refresh that writes drift into state leaves those objects with no
// basis: the state no longer holds what the configuration last applied,
// so the next plan (reading only what the change touches) must read and
// plan them, not take them as untouched.
func TestPlanAfterRefreshPlansTheDrift(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	editSimObject(t, w, "SecurityGroup", func(props map[string]any) {
		props["ingress"].([]any)[0].(map[string]any)["port"] = 22
	})
	res, err := e.Refresh(t.Context(), engine.RefreshOptions{WriteState: true})
	if err != nil || !res.Written {
		t.Fatalf("refresh: %v written=%v", err, res != nil && res.Written)
	}
	if got := w.state().Resources["sg"].Basis; got != nil {
		t.Errorf("sg keeps the basis of its last apply after a refresh recorded its drift: %+v", got)
	}
	if w.state().Resources["web"].Basis == nil {
		t.Error("web lost its basis though it did not drift")
	}
	p := mustPlan(t, e, parse(t, stack))
	if diff := cmp.Diff([]string{"update SecurityGroup sg"}, actions(p)); diff != "" {
		t.Errorf("plan after refresh (-want +got):\n%s", diff)
	}
}
