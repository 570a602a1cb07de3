package engine_test

import (
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
	check func(r provider.Desired) []provider.Refusal
}

func (r refusing) CheckResources(rs []provider.Desired) []provider.Refusal {
	var out []provider.Refusal
	for _, d := range rs {
		for _, ref := range r.check(d) {
			ref.Resource = d.Name
			out = append(out, ref)
		}
	}
	return out
}

// TestCheckSupportPositionsRefusals: a provider's refusals become
// diagnostics at the refused property, list element or field (or the
// resource), all of them, and the plan stops before any cloud call.
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
  sg:
    type: SecurityGroup
    properties:
      network: "${net}"
      ingress:
        - { port: 22, cidr: 10.0.0.0/16 }
        - { port: 80,
            cidr: 0.0.0.0/0 }
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16, tags: { team: web } } }
`)}})
	if err != nil {
		t.Fatal(err)
	}
	// A property the schema does not know yet (securityGroups on a load
	// balancer, added elsewhere) is refused by name all the same.
	lb := cfg.Resource("lb")
	lb.Properties["securityGroups"] = []any{"${sg}"}
	lb.PropPos.Set("securityGroups", diag.Pos{File: "kyku.yaml", Line: 9, Col: 7})

	s, err := sim.New(sim.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p := refusing{Provider: s, check: func(r provider.Desired) []provider.Refusal {
		switch {
		case r.Type == "Database":
			return []provider.Refusal{{Reason: "no databases here"}}
		case r.Properties["securityGroups"] != nil:
			return []provider.Refusal{{Path: "securityGroups", Reason: "no firewalls on load balancers"}}
		case r.Type == "SecurityGroup":
			return []provider.Refusal{
				{Path: "ingress[1].cidr", Reason: "too wide"},
				{Path: "ingress[0]", Reason: "not from there"},
				{Path: "ingress[0].port.x", Reason: "deeper than the config"},
			}
		case r.Type == "Vpc":
			return []provider.Refusal{{Path: "tags.team", Reason: "no team tags"}}
		}
		return nil
	}}
	want := `kyku.yaml:2:3: resource "app-db" (Database): no databases here
kyku.yaml:9:7: resource "lb" (LoadBalancer): property "securityGroups": no firewalls on load balancers
kyku.yaml:15:11: resource "sg" (SecurityGroup): property "ingress[0]": not from there
kyku.yaml:15:13: resource "sg" (SecurityGroup): property "ingress[0].port.x": deeper than the config
kyku.yaml:17:13: resource "sg" (SecurityGroup): property "ingress[1].cidr": too wide
kyku.yaml:18:62: resource "net" (Vpc): property "tags.team": no team tags`
	if err := engine.CheckSupport(p, cfg); err == nil || err.Error() != want {
		t.Errorf("CheckSupport:\n%v\nwant:\n%s", err, want)
	}
	e := engine.New(p, local.New(t.TempDir(), "", local.Options{}), engine.Options{DeployPrefix: "test", RetryBase: time.Millisecond})
	if _, err := e.Plan(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "kyku.yaml:2:3:") {
		t.Errorf("Plan: err = %v, want the positioned refusal", err)
	}
	if err := engine.CheckSupport(s, cfg); err != nil {
		t.Errorf("the sim refuses a valid configuration: %v", err)
	}
}
