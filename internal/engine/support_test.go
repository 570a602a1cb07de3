package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr/local"
)

// refusing is the sim with a ResourceChecker that refuses what check says.
type refusing struct {
	provider.Provider
	check func(name, typ string, props map[string]any) []provider.Refusal
}

func (r refusing) CheckResource(name, typ string, props map[string]any) []provider.Refusal {
	return r.check(name, typ, props)
}

// TestCheckSupportPositionsRefusals: a provider's refusals become
// diagnostics at the refused property (or the resource), all of them, and
// the plan stops before any cloud call.
func TestCheckSupportPositionsRefusals(t *testing.T) {
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(`resources:
  app-db:
    type: Database
    properties:
      engine: postgres
  lb:
    type: LoadBalancer
    properties:
      port: 80
`)}})
	if err != nil {
		t.Fatal(err)
	}
	// A property the schema does not know yet (securityGroups on a load
	// balancer, added elsewhere) is refused by name all the same.
	lb := cfg.Resource("lb")
	lb.Properties["securityGroups"] = []any{"${sg}"}
	lb.PropPos["securityGroups"] = diag.Pos{File: "kyku.yaml", Line: 9, Col: 7}

	s, err := sim.New(sim.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p := refusing{Provider: s, check: func(name, typ string, props map[string]any) []provider.Refusal {
		switch {
		case typ == "Database":
			return []provider.Refusal{{Reason: "no databases here"}}
		case props["securityGroups"] != nil:
			return []provider.Refusal{{Property: "securityGroups", Reason: "no firewalls on load balancers"}}
		}
		return nil
	}}
	want := `kyku.yaml:2:3: resource "app-db" (Database): no databases here
kyku.yaml:9:7: resource "lb" (LoadBalancer): property "securityGroups": no firewalls on load balancers`
	if err := engine.CheckSupport(p, cfg); err == nil || err.Error() != want {
		t.Errorf("CheckSupport:\n%v\nwant:\n%s", err, want)
	}
	e := engine.New(p, local.New(t.TempDir(), "", local.Options{}), engine.Options{DeployPrefix: "test", RetryBase: time.Millisecond})
	if _, err := e.Plan(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "kyku.yaml:2:3:") {
		t.Errorf("Plan: err = %v, want the positioned refusal", err)
	}
	if err := engine.CheckSupport(s, cfg); err != nil {
		t.Errorf("a provider without a checker refuses nothing: %v", err)
	}
}
