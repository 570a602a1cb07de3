package aws_test

import (
	"testing"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider/providertest"
	"github.com/kyku/action/internal/statemgr/local"
)

// examples/aws validates (kyku validate's checks: the provider's) and
// plans against the fake, as strict as AWS, with nothing refused.
func TestExampleValidatesAndPlans(t *testing.T) {
	p, srv := fake(t, engineOptions)
	cfg := providertest.Parse(t, providertest.Example(t, "aws"))
	if err := engine.CheckSupport(p, cfg); err != nil {
		t.Fatalf("validate: %v", err)
	}
	if n := srv.Requests(); n != 0 {
		t.Errorf("validate made %d requests", n)
	}
	e := engine.New(p, local.New(t.TempDir(), "", local.Options{}), engine.Options{DeployPrefix: "kyku0001"})
	pl, err := e.Plan(t.Context(), cfg)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if pl.Counters.Create != 14 {
		t.Errorf("plan creates %d, want the example's 14", pl.Counters.Create)
	}
}
