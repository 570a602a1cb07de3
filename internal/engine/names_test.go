package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kyku/action/internal/provider/sim"
)

// pickySim is the simulator with a cloud that refuses "_" in names.
type pickySim struct{ *sim.Provider }

func (pickySim) CheckName(typ, cloudName string) error {
	if strings.Contains(cloudName, "_") {
		return errors.New("no underscores")
	}
	return nil
}

// A name the cloud would refuse is a plan error at the resource, before
// anything is created; resources already in state are not asked about.
func TestPlanChecksNamesWithTheProvider(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(), parse(t, stack))
	_, counter := w.openSim(false)
	e := w.simEngine(pickySim{counter})
	cfg := parse(t, variant("outputs:", `  app_db:
    type: Database
    properties: { network: "${net}", engine: postgres }
outputs:`))
	_, err := e.Plan(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), `kyku.yaml:`) ||
		!strings.Contains(err.Error(), `resource "app_db": sim refuses its name "test-app_db": no underscores`) {
		t.Fatalf("err = %v, want a positioned error naming app_db", err)
	}
	if c := counter.Calls(); c.Create != 0 {
		t.Errorf("%d creates", c.Create)
	}
	if _, err := e.Plan(t.Context(), parse(t, stack)); err != nil {
		t.Errorf("plan without the new resource: %v", err)
	}
}
