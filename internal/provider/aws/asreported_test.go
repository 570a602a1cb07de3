package aws_test

// Tests for what AWS (and the emulators users run) report in forms Kyku
// did not expect: each fails with the provider as it was.

import (
	"strings"
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/aws/awstest"
	rds "github.com/kyku/action/internal/provider/aws/rdsapi"
	"github.com/kyku/action/internal/provider/providertest"
	"github.com/kyku/action/internal/statemgr/local"
)

// An allow-all rule (protocol -1) reported with ports, as some APIs do
// (ports mean nothing for -1: Amazon EC2 API Reference, IpPermission,
// IpProtocol), is the rule Kyku asked for: an unchanged group is left
// alone instead of revoked and authorized again.
func TestAllowAllRuleReportedWithPortsIsUnchanged(t *testing.T) {
	for _, ports := range [][2]string{{"-1", "-1"}, {"0", "65535"}, {"0", "0"}} {
		t.Run(ports[0]+"_"+ports[1], func(t *testing.T) {
			p, srv := setup(t)
			ctx := t.Context()
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
	if _, err := p.Create(t.Context(), res("TargetGroup", "tg2", map[string]any{"targets": []any{vm.ID}})); err == nil {
		t.Error("a target group that never shows was reported created")
	}
}

// RDS takes no storage change while the last one is optimized, nor within
// 6 hours of it (Amazon RDS User Guide, Increasing DB instance storage
// capacity): a plan reads the instance's status and events and refuses
// such a change, saying why and from when, at storageGb's line, instead
// of AWS refusing it mid-apply. Six hours later the same plan goes.
func TestStorageChangeTooSoonRefusedAtPlan(t *testing.T) {
	srv := awstest.New()
	t.Cleanup(srv.Close)
	opts := engineOptions
	opts.Now = srv.Now
	p := aws.NewWithClients(clients(srv, nil), opts)
	ctx := t.Context()
	e := engine.New(p, local.New(t.TempDir(), "", local.Options{}), engine.Options{DeployPrefix: "kyku0001", RetryBase: time.Millisecond})
	apply := func(text string) error {
		res, err := e.Apply(ctx, providertest.Parse(t, text), engine.ApplyOptions{AutoApprove: true}, nil)
		if err == nil && len(res.Failed) > 0 {
			err = res.Failed[0].Err
		}
		return err
	}
	text := providertest.Example(t, "aws")
	if err := apply(text); err != nil {
		t.Fatal(err)
	}
	grown := providertest.Edit(t, text, "storageGb: 20", "storageGb: 40")
	if err := apply(grown); err != nil {
		t.Fatalf("first storage change: %v", err)
	}
	more := providertest.Edit(t, text, "storageGb: 20", "storageGb: 80")
	_, err := e.Plan(ctx, providertest.Parse(t, more))
	if err == nil || !strings.Contains(err.Error(), "storage-optimization") || !strings.Contains(err.Error(), "kyku.yaml:91") {
		t.Fatalf("plan during storage-optimization: err = %v, want the refusal at storageGb (kyku.yaml:91)", err)
	}
	// Optimization done, yet less than 6 hours after the change.
	srv.Edit(func(st *awstest.State) {
		for _, db := range st.DBs {
			db.Script = nil
		}
	})
	srv.Advance(5 * time.Hour)
	_, err = e.Plan(ctx, providertest.Parse(t, more))
	if err == nil || !strings.Contains(err.Error(), "RDS takes the next one 6 hours after that: from 2026-05-01 18:0") {
		t.Fatalf("plan 5 hours after: err = %v, want the 6-hour rule and when it ends", err)
	}
	modifies := srv.Calls("ModifyDBInstance")
	srv.Advance(time.Hour)
	if err := apply(more); err != nil {
		t.Fatalf("6 hours after: %v", err)
	}
	if srv.Calls("ModifyDBInstance") != modifies+1 {
		t.Errorf("ModifyDBInstance %d times, want one more", srv.Calls("ModifyDBInstance")-modifies)
	}
}

// The fake refuses as RDS does what planning now refuses: a storage change
// during storage-optimization or within 6 hours, with RDS's message; other
// changes go on during storage-optimization.
func TestFakeRDSStorageCooldown(t *testing.T) {
	_, srv, _, _ := dbStack(t)
	ctx := t.Context()
	c := clients(srv, nil).RDS
	modify := func(in rds.ModifyDBInstanceInput) error {
		in.DBInstanceIdentifier, in.ApplyImmediately = sdkaws.String("demo-db"), sdkaws.Bool(true)
		err := c.ModifyDBInstance(ctx, &in)
		return err
	}
	settle := func() {
		for range 100 {
			out, err := c.DescribeDBInstances(ctx, &rds.DescribeDBInstancesInput{DBInstanceIdentifier: sdkaws.String("demo-db")})
			if err != nil {
				t.Fatal(err)
			}
			if st := sdkaws.ToString(out.DBInstances[0].DBInstanceStatus); st == "available" || st == "storage-optimization" {
				return
			}
		}
		t.Fatal("never settled")
	}
	if err := modify(rds.ModifyDBInstanceInput{AllocatedStorage: sdkaws.Int32(40)}); err != nil {
		t.Fatal(err)
	}
	for range 6 { // through modifying, into storage-optimization
		settle()
	}
	err := modify(rds.ModifyDBInstanceInput{AllocatedStorage: sdkaws.Int32(80)})
	if apiCodeOf(err) != "InvalidParameterCombination" || !strings.Contains(err.Error(), "being optimized") {
		t.Errorf("storage change during storage-optimization: %v", err)
	}
	if err := modify(rds.ModifyDBInstanceInput{DBInstanceClass: sdkaws.String("db.t3.medium")}); err != nil {
		t.Errorf("a class change during storage-optimization: %v", err)
	}
	srv.Edit(func(st *awstest.State) { st.DBs["demo-db"].Script = nil })
	err = modify(rds.ModifyDBInstanceInput{AllocatedStorage: sdkaws.Int32(80)})
	if apiCodeOf(err) != "InvalidParameterCombination" || !strings.Contains(err.Error(), "Try again after approximately 6 hours") {
		t.Errorf("storage change within 6 hours: %v", err)
	}
	srv.Edit(func(st *awstest.State) { st.DBs["demo-db"].Script = nil })
	srv.Advance(6 * time.Hour)
	if err := modify(rds.ModifyDBInstanceInput{AllocatedStorage: sdkaws.Int32(80)}); err != nil {
		t.Errorf("storage change 6 hours after: %v", err)
	}
	out, err := c.DescribeEvents(ctx, &rds.DescribeEventsInput{SourceType: "db-instance", SourceIdentifier: sdkaws.String("demo-db"), Duration: sdkaws.Int32(24 * 60)})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, e := range out.Events {
		msgs = append(msgs, sdkaws.ToString(e.Message))
	}
	if len(msgs) < 2 || msgs[0] != "Applying modification to allocated storage" {
		t.Errorf("events %q, want the storage modifications", msgs)
	}
}

// A target group its load balancer's listener forwards to cannot be
// deleted (ResourceInUse): replacing it (its port cannot change) makes the
// new group first, moves the listener to it, then deletes the old one —
// the plan says create-before-destroy, and the apply converges.
func TestTargetGroupReplacedWhileItsLoadBalancerStays(t *testing.T) {
	p, srv := fake(t, engineOptions)
	ctx := t.Context()
	e := engine.New(p, local.New(t.TempDir(), "", local.Options{}), engine.Options{DeployPrefix: "kyku0001", RetryBase: time.Millisecond})
	text := providertest.Example(t, "aws")
	if _, err := e.Apply(ctx, providertest.Parse(t, text), engine.ApplyOptions{AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	next := providertest.Edit(t, text, "      port: 80\n      protocol: http", "      port: 8080\n      protocol: http")
	pl, err := e.Plan(ctx, providertest.Parse(t, next))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range pl.Changes {
		if c.ResourceID == "web-tg" && (c.Action != plan.Replace || c.ReplaceOrder != plan.CreateBeforeDestroy || c.PriorCloudName != "kyku0001-web-tg") {
			t.Fatalf("web-tg: %s %s %s → %s; want a replace, create-before-destroy", c.Action, c.ReplaceOrder, c.PriorCloudName, c.CloudName)
		}
	}
	res, err := e.Apply(ctx, providertest.Parse(t, next), engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil || len(res.Skipped) > 0 {
		t.Fatalf("apply: %v (%d skipped)", err, len(res.Skipped))
	}
	if pl, err := e.Plan(ctx, providertest.Parse(t, next)); err != nil || pl.HasChanges() {
		t.Errorf("plan after apply: %v, changes %v", err, pl.Counters)
	}
	srv.Edit(func(st *awstest.State) {
		if len(st.TGs) != 1 {
			t.Errorf("%d target groups left, want the replacement only", len(st.TGs))
		}
		for _, tg := range st.TGs {
			if tg.Port != 8080 {
				t.Errorf("target group %s on port %d", tg.Name, tg.Port)
			}
		}
	})
}
