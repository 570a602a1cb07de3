package aws_test

// Tests for deletes, waits, retries, load balancers and pagination as a
// fresh, real AWS account behaves; each fails against the fake made as
// strict as AWS on that point with the provider as it was.

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/aws/awstest"
)

// lbStack is a site with an instance, a target group and a load balancer.
func lbStack(t *testing.T, p *aws.Provider) (site, provider.Object, provider.Object, provider.Object) {
	t.Helper()
	s := newSite(t, p)
	vm := mustCreate(t, p, res("Vm", "web", map[string]any{"subnet": s.public[0], "image": "debian-12"}))
	tg := mustCreate(t, p, res("TargetGroup", "tg", map[string]any{"targets": []any{vm.ID}}))
	lb := mustCreate(t, p, res("LoadBalancer", "lb", map[string]any{"network": s.vpc, "targetGroup": tg.ID, "securityGroups": []any{s.sg}}))
	return s, vm, tg, lb
}

// "Still in use" answers are retried, not fatal.
func TestDeletesRetryWhileInUse(t *testing.T) {
	p, srv := setup(t)
	ctx := t.Context()
	s, _, tg, lb := lbStack(t, p)
	if err := p.Delete(ctx, "LoadBalancer", lb.ID); err != nil {
		t.Fatal(err)
	}
	srv.Fail("DeleteTargetGroup", 2, 400, "ResourceInUse")
	if err := p.Delete(ctx, "TargetGroup", tg.ID); err != nil {
		t.Errorf("delete target group: %v", err)
	}
	srv.Fail("DeleteSecurityGroup", 3, 400, "DependencyViolation")
	srv.Fail("DeleteSubnet", 3, 400, "DependencyViolation")
	if err := p.Delete(ctx, "Subnet", s.private[0]); err != nil {
		t.Errorf("delete subnet: %v", err)
	}
	if n := srv.Calls("DeleteSubnet"); n != 4 {
		t.Errorf("DeleteSubnet calls = %d, want 4 (3 in use, then done)", n)
	}
}

// The load balancer's network interfaces stay minutes after it is gone:
// subnets and security groups are deleted once they went, without a
// DependencyViolation.
func TestDeleteWaitsForServiceInterfaces(t *testing.T) {
	p, srv := setup(t)
	ctx := t.Context()
	s, vm, tg, lb := lbStack(t, p)
	for _, o := range []struct{ typ, id string }{{"LoadBalancer", lb.ID}, {"TargetGroup", tg.ID}, {"Vm", vm.ID}, {"SecurityGroup", s.sg},
		{"Subnet", s.public[0]}, {"Subnet", s.public[1]}} {
		if err := p.Delete(ctx, o.typ, o.id); err != nil {
			t.Fatalf("delete %s: %v", o.typ, err)
		}
	}
	if srv.Calls("DescribeNetworkInterfaces") == 0 {
		t.Error("subnets deleted without looking for the load balancer's interfaces")
	}
	if d, g := srv.Calls("DeleteSubnet"), srv.Calls("DeleteSecurityGroup"); d != 2 || g != 1 {
		t.Errorf("DeleteSubnet %d, DeleteSecurityGroup %d calls; want 2 and 1 (no attempt while in use)", d, g)
	}
}

// Objects created a moment ago may not be visible yet: the reads right
// after a create retry "not found".
func TestReadAfterCreateRetriesNotFound(t *testing.T) {
	p, srv := setup(t)
	srv.SetLag(3)
	vpc := mustCreate(t, p, res("Vpc", "net", map[string]any{"cidr": "10.1.0.0/16"}))
	mustCreate(t, p, res("Subnet", "a", map[string]any{"network": vpc.ID, "cidr": "10.1.0.0/24", "zone": "eu-west-1a"}))
	mustCreate(t, p, res("SecurityGroup", "sg", map[string]any{"network": vpc.ID, "ingress": []any{rule("tcp", 22, "10.0.0.0/8")}}))
	mustCreate(t, p, res("SshKey", "key", map[string]any{"publicKey": keyB}))
	if p.Retries() == 0 {
		t.Error("no retry; the lag should have been felt")
	}
}

// A resize whose first start fails (capacity) starts again; the instance
// ends up running as the new type, with the new public IP it got.
func TestResizeKeepsTheInstanceRunning(t *testing.T) {
	p, srv := setup(t)
	ctx := t.Context()
	_, subnet, _ := network(t, p)
	r := res("Vm", "app", map[string]any{"subnet": subnet, "image": "debian-12", "size": "small"})
	vm := mustCreate(t, p, r)
	srv.Fail("StartInstances", 1, 400, "InsufficientInstanceCapacity")
	r.Properties["size"] = "medium"
	got, err := p.Update(ctx, vm.ID, r)
	if err != nil {
		t.Fatalf("resize: %v", err)
	}
	srv.Edit(func(st *awstest.State) {
		in := st.Instances[vm.ID]
		if in.State != "running" || in.Type != "t3.medium" {
			t.Errorf("instance %s as %s, want running as t3.medium", in.State, in.Type)
		}
		if got.Outputs["publicIp"] != in.PublicIP || in.PublicIP == vm.Outputs["publicIp"] {
			t.Errorf("publicIp output %v, instance %s, before %v: want the new address", got.Outputs["publicIp"], in.PublicIP, vm.Outputs["publicIp"])
		}
	})

	// When the new type cannot start at all, the old one runs again and
	// the update fails saying so.
	srv.Fail("StartInstances", 3, 400, "InsufficientInstanceCapacity")
	r.Properties["size"] = "large"
	_, err = p.Update(ctx, vm.ID, r)
	if err == nil || !strings.Contains(err.Error(), "t3.medium") {
		t.Fatalf("err = %v, want the failure saying it runs as t3.medium again", err)
	}
	srv.Edit(func(st *awstest.State) {
		if in := st.Instances[vm.ID]; in.State != "running" || in.Type != "t3.medium" {
			t.Errorf("instance %s as %s after a failed resize, want running as t3.medium", in.State, in.Type)
		}
	})

	// A resize interrupted after the stop is finished by the next update.
	srv.Edit(func(st *awstest.State) {
		in := st.Instances[vm.ID]
		in.State, in.Type = "stopped", "t3.large"
		in.Tags["kyku:resizing"] = "t3.large"
	})
	if _, err := p.Update(ctx, vm.ID, r); err != nil {
		t.Fatal(err)
	}
	srv.Edit(func(st *awstest.State) {
		if in := st.Instances[vm.ID]; in.State != "running" || in.Tags["kyku:resizing"] != "" {
			t.Errorf("interrupted resize not finished: %s, tags %v", in.State, in.Tags)
		}
	})
}

// An instance that terminates while Kyku waits for it to run fails the
// create at once, with EC2's reason, instead of waiting out every poll.
func TestTerminatedWhileAwaitedFailsAtOnce(t *testing.T) {
	p, srv := setup(t)
	_, subnet, _ := network(t, p)
	srv.FailLaunch(1)
	before := srv.Calls("DescribeInstances")
	_, err := p.Create(t.Context(), res("Vm", "app", map[string]any{"subnet": subnet, "image": "debian-12"}))
	if err == nil || !strings.Contains(err.Error(), "Server.InternalError") || provider.IsTransient(err) {
		t.Fatalf("err = %v, want a permanent failure naming Server.InternalError", err)
	}
	if n := srv.Calls("DescribeInstances") - before; n > 4 {
		t.Errorf("%d DescribeInstances after the launch failed; want to stop at once", n)
	}
}

// Connection resets are retried; a create that is not idempotent is not
// resent blindly (the engine's retry looks it up first), one that is
// (RunInstances with a client token) is.
func TestNetworkErrorsRetried(t *testing.T) {
	p, srv := setup(t)
	ctx := t.Context()
	vpc, subnet, _ := network(t, p)
	srv.DropConnection("DescribeVpcs", 2, false)
	if _, err := p.Read(ctx, "Vpc", vpc); err != nil {
		t.Errorf("read after two resets: %v", err)
	}
	// A request that gets no answer times out and is sent again.
	srv.Stall("DescribeSubnets", 1)
	hc := &http.Client{Timeout: 200 * time.Millisecond}
	q := aws.NewWithClients(clients(srv, hc), aws.Options{MaxAttempts: 4, Backoff: time.Microsecond})
	if _, err := q.Read(ctx, "Subnet", subnet); err != nil {
		t.Errorf("read after a timeout: %v", err)
	}
	srv.DropConnection("RunInstances", 1, true)
	vm := mustCreate(t, p, res("Vm", "app", map[string]any{"subnet": subnet, "image": "debian-12"}))
	srv.Edit(func(st *awstest.State) {
		if len(st.Instances) != 1 || st.Instances[vm.ID] == nil {
			t.Errorf("instances %v, want exactly %s", st.Instances, vm.ID)
		}
	})
	srv.DropConnection("CreateVpc", 1, true)
	r := res("Vpc", "other", map[string]any{"cidr": "10.2.0.0/16"})
	_, err := p.Create(ctx, r)
	if !provider.IsTransient(err) {
		t.Fatalf("lost CreateVpc response: err = %v, want transient", err)
	}
	mustCreate(t, p, r) // the engine's retry: finds the VPC, makes no second one
	if n := srv.Calls("CreateVpc"); n != 2 {
		t.Errorf("CreateVpc calls = %d, want 2 (net and other, once each)", n)
	}
}

// A load balancer gets one public subnet per zone, and an application load
// balancer two zones at least: refused before any call otherwise.
func TestLoadBalancerSubnetsOnePerZone(t *testing.T) {
	p, srv := setup(t)
	ctx := t.Context()
	s := newSite(t, p)
	extra := mustCreate(t, p, res("Subnet", "pub-a2", map[string]any{"network": s.vpc, "cidr": "10.1.9.0/24", "zone": "eu-west-1a", "public": true}))
	vm := mustCreate(t, p, res("Vm", "web", map[string]any{"subnet": s.public[0], "image": "debian-12"}))
	tg := mustCreate(t, p, res("TargetGroup", "tg", map[string]any{"targets": []any{vm.ID}}))
	mustCreate(t, p, res("LoadBalancer", "lb", map[string]any{"network": s.vpc, "targetGroup": tg.ID}))
	srv.Edit(func(st *awstest.State) {
		for _, lb := range st.LBs {
			if len(lb.Subnets) != 2 || anyOf(lb.Subnets, extra.ID) && anyOf(lb.Subnets, s.public[0]) {
				t.Errorf("load balancer subnets %v, want one per zone", lb.Subnets)
			}
		}
	})

	// One zone only.
	q, srv2 := setup(t)
	vpc, subnet, _ := network(t, q)
	vm2 := mustCreate(t, q, res("Vm", "web", map[string]any{"subnet": subnet, "image": "debian-12"}))
	tg2 := mustCreate(t, q, res("TargetGroup", "tg", map[string]any{"targets": []any{vm2.ID}}))
	_, err := q.Create(ctx, res("LoadBalancer", "lb", map[string]any{"network": vpc, "targetGroup": tg2.ID}))
	if err == nil || !strings.Contains(err.Error(), "two zones") {
		t.Errorf("err = %v, want the two-zone rule", err)
	}
	if n := srv2.Calls("CreateLoadBalancer"); n != 0 {
		t.Errorf("CreateLoadBalancer calls = %d, want 0", n)
	}
	// A network load balancer (tcp target group) may live in one zone.
	tg3 := mustCreate(t, q, res("TargetGroup", "tcp", map[string]any{"protocol": "tcp", "port": float64(5432), "targets": []any{vm2.ID}}))
	mustCreate(t, q, res("LoadBalancer", "nlb", map[string]any{"network": vpc, "port": float64(5432), "targetGroup": tg3.ID}))
}

func anyOf(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Zones for auto-subnets are the region's availability zones: no Local
// or Wavelength Zone (where t3 instances and RDS may not exist).
func TestZonesLeaveOutLocalZones(t *testing.T) {
	p, _ := setup(t)
	zones, err := p.Zones(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"eu-west-1a", "eu-west-1b", "eu-west-1c"}, zones); d != "" {
		t.Errorf("zones (-want +got):\n%s", d)
	}
}

// An HTTPS listener needs a certificate: certificateArn gives it one (TLS
// ends at the load balancer), and https without one is refused before
// any call.
func TestHTTPSListenerNeedsACertificate(t *testing.T) {
	p, srv := setup(t)
	ctx := t.Context()
	s := newSite(t, p)
	vm := mustCreate(t, p, res("Vm", "web", map[string]any{"subnet": s.public[0], "image": "debian-12"}))
	tgs := mustCreate(t, p, res("TargetGroup", "tgs", map[string]any{"protocol": "https", "port": float64(443), "targets": []any{vm.ID}}))
	_, err := p.Create(ctx, res("LoadBalancer", "lb", map[string]any{"network": s.vpc, "port": float64(443), "targetGroup": tgs.ID}))
	if err == nil || !strings.Contains(err.Error(), "certificateArn") {
		t.Fatalf("https without certificate: err = %v, want it to ask for certificateArn", err)
	}
	if n := srv.Calls("CreateLoadBalancer"); n != 0 {
		t.Errorf("CreateLoadBalancer calls = %d, want 0", n)
	}
	const cert = "arn:aws:acm:eu-west-1:123456789012:certificate/0b2c"
	tg := mustCreate(t, p, res("TargetGroup", "tg", map[string]any{"targets": []any{vm.ID}}))
	r := res("LoadBalancer", "lb", map[string]any{"network": s.vpc, "port": float64(443), "targetGroup": tg.ID, "certificateArn": cert})
	lb := mustCreate(t, p, r)
	noop(t, p, r, lb.ID)
	srv.Edit(func(st *awstest.State) {
		for _, l := range st.Listeners {
			if l.Protocol != "HTTPS" || l.Certificate != cert || l.TG != tg.ID {
				t.Errorf("listener %+v, want HTTPS with the certificate, forwarding to the http target group", l)
			}
		}
	})
	delete(r.Properties, "certificateArn")
	r.Properties["port"] = float64(80)
	if _, err := p.Update(ctx, lb.ID, r); err != nil {
		t.Fatal(err)
	}
	noop(t, p, r, lb.ID)
}

// A target being deregistered drains for minutes; it is not a member.
func TestDrainingTargetsAreNotMembers(t *testing.T) {
	p, _ := setup(t)
	_, subnet, _ := network(t, p)
	a := mustCreate(t, p, res("Vm", "a", map[string]any{"subnet": subnet, "image": "debian-12"}))
	b := mustCreate(t, p, res("Vm", "b", map[string]any{"subnet": subnet, "image": "debian-12"}))
	r := res("TargetGroup", "tg", map[string]any{"port": float64(80), "protocol": "http", "targets": []any{a.ID, b.ID}})
	tg := mustCreate(t, p, r)
	r.Properties["targets"] = []any{a.ID}
	if _, err := p.Update(t.Context(), tg.ID, r); err != nil {
		t.Fatal(err)
	}
	noop(t, p, r, tg.ID)
}

// Every page of every listing is read: with one object per page, lookups,
// the subnets a Vm, a database or a load balancer is placed in, and reads
// all find what is past the first page.
func TestEveryPageIsRead(t *testing.T) {
	p, srv := setup(t)
	srv.SetPageSize(1)
	s := newSite(t, p)
	for i := range 3 {
		mustCreate(t, p, res("Vpc", fmt.Sprintf("more-%d", i), map[string]any{"cidr": "10.9.0.0/16"}))
	}
	got, err := p.Lookup(t.Context(), "Subnet", "demo-priv-eu-west-1b")
	if err != nil || got.ID != s.private[1] {
		t.Errorf("lookup of the last subnet: %v, %v", got.ID, err)
	}
	db := mustCreate(t, p, res("Database", "db", map[string]any{"network": s.vpc, "engine": "postgres"}))
	srv.Edit(func(st *awstest.State) {
		if d := cmp.Diff(sortedCopy(s.private), st.DBSubnetGroups["demo-db"].Subnets); d != "" {
			t.Errorf("DB subnet group (-want +got):\n%s", d)
		}
	})
	_, _, _, lb := lbStack(t, p)
	if _, err := p.Read(t.Context(), "LoadBalancer", lb.ID); err != nil {
		t.Error(err)
	}
	if err := p.Delete(t.Context(), "Database", db.ID); err != nil {
		t.Error(err)
	}
}
