package hetzner_test

import (
	"testing"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider/providertest"
	"github.com/kyku/action/internal/statemgr/local"
)

// examples/hetzner validates (kyku validate's checks: the provider's,
// private firewall ranges among them) and plans against the fake, as
// strict as the API, with nothing refused (TestExampleInEveryLocation
// applies it in every location).
func TestExampleValidatesAndPlans(t *testing.T) {
	e := setup(t)
	cfg := providertest.Parse(t, providertest.Example(t, "hetzner"))
	if err := engine.CheckSupport(e.p, cfg); err != nil {
		t.Fatalf("validate: %v", err)
	}
	if n := e.cloud.Calls(""); n != 0 {
		t.Errorf("validate made %d requests", n)
	}
	eng := engine.New(e.p, local.New(t.TempDir(), "", local.Options{}), engineOptions)
	pl, err := eng.Plan(t.Context(), cfg)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if pl.Counters.Create != 9 {
		t.Errorf("plan creates %d, want the example's 9", pl.Counters.Create)
	}
}
