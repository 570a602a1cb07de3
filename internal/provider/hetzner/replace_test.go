package hetzner_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/hetzner/hcloudtest"
	"github.com/kyku/action/internal/provider/providertest"
	"github.com/kyku/action/internal/statemgr/local"
)

// A subnet a server that stays is attached in cannot be deleted
// (service_error "servers are attached"): replacing it (its range cannot
// change) adds the new subnet first, moves the server to it, then deletes
// the old one — the plan says create-before-destroy, and the apply
// converges.
func TestSubnetReplacedWhileItsServerStays(t *testing.T) {
	e := setup(t)
	ctx := t.Context()
	eng := engine.New(e.p, local.New(t.TempDir(), "", local.Options{}), engineOptions)
	cfg := `provider: { name: hetzner, location: fsn1 }
resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }
  sub: { type: Subnet, properties: { network: "${net}", cidr: 10.0.1.0/24, zone: eu-central } }
  fw: { type: SecurityGroup, properties: { network: "${net}", ingress: [ { port: 22, cidr: 203.0.113.0/24 } ] } }
  vm: { type: Vm, properties: { network: "${net}", subnet: "${sub}", securityGroups: [ "${fw}" ], image: debian-12 } }
`
	apply := func(text string) {
		t.Helper()
		res, err := eng.Apply(ctx, providertest.Parse(t, text), engine.ApplyOptions{AutoApprove: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Err(); err != nil || len(res.Skipped) > 0 {
			t.Fatalf("apply: %v (%d skipped)", err, len(res.Skipped))
		}
	}
	apply(cfg)
	next := strings.Replace(cfg, "cidr: 10.0.1.0/24", "cidr: 10.0.2.0/24", 1)
	pl, err := eng.Plan(ctx, providertest.Parse(t, next))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range pl.Changes {
		if c.ResourceID == "sub" && (c.Action != plan.Replace || c.ReplaceOrder != plan.CreateBeforeDestroy) {
			t.Fatalf("sub: %s %s; want a replace, create-before-destroy", c.Action, c.ReplaceOrder)
		}
	}
	apply(next)
	if pl, err := eng.Plan(ctx, providertest.Parse(t, next)); err != nil || pl.HasChanges() {
		t.Errorf("plan after apply: %v, changes %v", err, pl.Counters)
	}
	e.cloud.Edit(func(st *hcloudtest.State) {
		for _, n := range st.Networks {
			if len(n.Subnets) != 1 || n.Subnets[0].IPRange != "10.0.2.0/24" {
				t.Errorf("subnets %v, want 10.0.2.0/24 only", n.Subnets)
			}
		}
		for _, s := range st.Servers {
			if len(s.PrivateNet) != 1 || !strings.HasPrefix(s.PrivateNet[0].IP, "10.0.2.") {
				t.Errorf("server %s in %v, want 10.0.2.0/24", s.Name, s.PrivateNet)
			}
		}
	})
}

// What Hetzner does not delete while used asks to be replaced
// create-before-destroy: a firewall always (two can exist side by side),
// a subnet when its replacement fits beside it (another network, or a
// range not overlapping).
func TestCreateBeforeDestroyAsked(t *testing.T) {
	p := setup(t).p
	for _, tc := range []struct {
		typ        string
		old, props map[string]any
		want       bool
	}{
		{"SecurityGroup", map[string]any{"network": "1"}, map[string]any{"network": "2"}, true},
		{"Subnet", map[string]any{"network": "1", "cidr": "10.0.1.0/24"}, map[string]any{"network": "1", "cidr": "10.0.2.0/24"}, true},
		{"Subnet", map[string]any{"network": "1", "cidr": "10.0.1.0/24"}, map[string]any{"network": "1", "cidr": "10.0.0.0/16"}, false},
		{"Subnet", map[string]any{"network": "1", "cidr": "10.0.1.0/24"}, map[string]any{"network": "(known after apply)", "cidr": "10.0.1.0/24"}, true},
		{"Vpc", map[string]any{"cidr": "10.0.0.0/16"}, map[string]any{"cidr": "10.1.0.0/16"}, false},
	} {
		cp, err := p.PlanChange(t.Context(), provider.ChangeRequest{
			Resource: provider.Resource{Type: tc.typ, Properties: tc.props}, ID: "1", Prior: tc.old,
		})
		if err != nil || cp.CreateBeforeDestroy != tc.want {
			t.Errorf("%s %v → %v: create-before-destroy %v (%v), want %v", tc.typ, tc.old, tc.props, cp.CreateBeforeDestroy, err, tc.want)
		}
	}
}
