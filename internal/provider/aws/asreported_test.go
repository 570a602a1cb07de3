package aws_test

// Tests for what AWS (and the emulators users run) report in forms Kyku
// did not expect: each fails with the provider as it was.

import (
	"context"
	"testing"

	"github.com/kyku/action/internal/provider/aws/awstest"
)

// An allow-all rule (protocol -1) reported with ports, as some APIs do
// (ports mean nothing for -1: Amazon EC2 API Reference, IpPermission,
// IpProtocol), is the rule Kyku asked for: an unchanged group is left
// alone instead of revoked and authorized again.
func TestAllowAllRuleReportedWithPortsIsUnchanged(t *testing.T) {
	for _, ports := range [][2]string{{"-1", "-1"}, {"0", "65535"}, {"0", "0"}} {
		t.Run(ports[0]+"_"+ports[1], func(t *testing.T) {
			p, srv := setup(t)
			ctx := context.Background()
			vpc := mustCreate(t, p, res("Vpc", "net", map[string]any{"cidr": "10.1.0.0/16"})).ID
			managed := res("SecurityGroup", "managed", map[string]any{"network": vpc,
				"ingress": []any{map[string]any{"protocol": "all", "cidr": "10.1.0.0/16"}},
				"egress":  []any{map[string]any{"protocol": "all", "cidr": "0.0.0.0/0"}}})
			dflt := res("SecurityGroup", "default-egress", map[string]any{"network": vpc, "ingress": []any{rule("tcp", 22, "10.0.0.0/8")}})
			ids := map[string]string{}
			for _, r := range []string{"managed", "default-egress"} {
				rr := managed
				if r == "default-egress" {
					rr = dflt
				}
				ids[r] = mustCreate(t, p, rr).ID
			}
			srv.Edit(func(st *awstest.State) {
				for _, g := range st.Groups {
					for _, rules := range []*[]awstest.Rule{&g.Ingress, &g.Egress} {
						for i := range *rules {
							if (*rules)[i].Protocol == "-1" {
								(*rules)[i].FromPort, (*rules)[i].ToPort = ports[0], ports[1]
							}
						}
					}
				}
			})
			noop(t, p, managed, ids["managed"])
			noop(t, p, dflt, ids["default-egress"])
			before := srv.Calls("RevokeSecurityGroupEgress") + srv.Calls("RevokeSecurityGroupIngress") + srv.Calls("AuthorizeSecurityGroupEgress") + srv.Calls("AuthorizeSecurityGroupIngress")
			if _, err := p.Update(ctx, ids["managed"], managed); err != nil {
				t.Fatal(err)
			}
			if _, err := p.Update(ctx, ids["default-egress"], dflt); err != nil {
				t.Fatal(err)
			}
			after := srv.Calls("RevokeSecurityGroupEgress") + srv.Calls("RevokeSecurityGroupIngress") + srv.Calls("AuthorizeSecurityGroupEgress") + srv.Calls("AuthorizeSecurityGroupIngress")
			if after != before {
				t.Errorf("%d revoke or authorize requests for unchanged groups, want none", after-before)
			}
			// A change revokes the allow-all rule, whatever ports it
			// was reported with.
			managed.Properties["egress"] = []any{rule("tcp", 443, "0.0.0.0/0")}
			if _, err := p.Update(ctx, ids["managed"], managed); err != nil {
				t.Fatal(err)
			}
			noop(t, p, managed, ids["managed"])
		})
	}
}

// A target group, load balancer or DB instance made a moment ago may not
// be visible yet (ELBv2 and RDS are eventually consistent, as EC2 is):
// the reads right after a create retry not-found, bounded, as they do for
// EC2 objects.
func TestNewELBAndRDSObjectsRetryNotFound(t *testing.T) {
	p, srv := setup(t)
	s := newSite(t, p)
	vm := mustCreate(t, p, res("Vm", "web", map[string]any{"subnet": s.public[0], "image": "debian-12"}))
	srv.SetLag(3)
	before := p.Retries()
	tg := mustCreate(t, p, res("TargetGroup", "tg", map[string]any{"targets": []any{vm.ID}}))
	mustCreate(t, p, res("LoadBalancer", "lb", map[string]any{"network": s.vpc, "targetGroup": tg.ID, "securityGroups": []any{s.sg}}))
	mustCreate(t, p, res("Database", "db", map[string]any{"engine": "postgres", "network": s.vpc, "securityGroups": []any{s.sg}}))
	if p.Retries() == before {
		t.Error("no retry; the lag should have been felt")
	}
	// Bounded: an object that never shows is an error, not a hang.
	srv.SetLag(1000)
	if _, err := p.Create(context.Background(), res("TargetGroup", "tg2", map[string]any{"targets": []any{vm.ID}})); err == nil {
		t.Error("a target group that never shows was reported created")
	}
}
