package aws_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/aws/awstest"
)

// fake starts a fake AWS and a provider with opts speaking to it through
// the provider's real clients.
func fake(t *testing.T, opts aws.Options) (*aws.Provider, *awstest.Server) {
	t.Helper()
	srv := awstest.New()
	t.Cleanup(srv.Close)
	return aws.NewWithClients(clients(srv, nil), opts), srv
}

// clients are the provider's real clients, in eu-west-1, speaking to srv
// (through hc when it is set).
func clients(srv *awstest.Server, hc *http.Client) aws.Clients {
	cfg := sdkaws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", "")}
	if hc != nil {
		cfg.HTTPClient = hc
	}
	c, err := aws.ClientsFromConfig(context.Background(), cfg, srv.URL())
	if err != nil {
		panic(err) // an endpoint is given: nothing to refuse
	}
	return c
}

// setup is a fake AWS and a provider that gives up soon.
func setup(t *testing.T) (*aws.Provider, *awstest.Server) {
	t.Helper()
	return fake(t, aws.Options{
		MaxAttempts: 4, Backoff: time.Microsecond, MaxBackoff: time.Millisecond,
		PollInterval: time.Microsecond, MaxPolls: 20,
	})
}

func res(typ, name string, props map[string]any) provider.Resource {
	return provider.Resource{Name: name, Type: typ, CloudName: "demo-" + name, Prefix: "demo", Properties: props}
}

func mustCreate(t *testing.T, p *aws.Provider, r provider.Resource) provider.Object {
	t.Helper()
	obj, err := p.Create(t.Context(), r)
	if err != nil {
		t.Fatalf("create %s: %v", r.Name, err)
	}
	return obj
}

// noop asserts Read returns what was requested (minus omit), so the
// engine's diff would find nothing to do.
func noop(t *testing.T, p *aws.Provider, r provider.Resource, id string, omit ...string) provider.Object {
	t.Helper()
	got, err := p.Read(t.Context(), r.Type, id)
	if err != nil {
		t.Fatalf("read %s: %v", r.Name, err)
	}
	want := map[string]any{}
	for k, v := range r.Properties {
		want[k] = v
	}
	for _, k := range omit {
		delete(want, k)
	}
	if d := cmp.Diff(want, got.Properties); d != "" {
		t.Errorf("read %s %s differs from the request (-want +got):\n%s", r.Type, r.Name, d)
	}
	if got.CloudName != r.CloudName {
		t.Errorf("read %s: cloud name %q, want %q", r.Name, got.CloudName, r.CloudName)
	}
	return got
}

func rule(proto string, port float64, cidr string) any {
	return map[string]any{"protocol": proto, "port": port, "cidr": cidr}
}

func TestQuickstartLifecycle(t *testing.T) {
	p, srv := setup(t)
	ctx := t.Context()

	zones, err := p.Zones(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"eu-west-1a", "eu-west-1b", "eu-west-1c"}, zones); d != "" {
		t.Fatalf("zones (-want +got):\n%s", d)
	}

	vpcR := res("Vpc", "main", map[string]any{"cidr": "10.0.0.0/16", "tags": map[string]any{"team": "web"}})
	vpc := mustCreate(t, p, vpcR)
	if !strings.HasPrefix(vpc.ID, "vpc-") {
		t.Fatalf("vpc id %q is not an AWS VPC ID", vpc.ID)
	}
	noop(t, p, vpcR, vpc.ID)

	var subnets []provider.Object
	for i, s := range []struct {
		name, cidr, zone string
		public           bool
	}{
		{"main-subnet-public-0", "10.0.0.0/24", "eu-west-1a", true},
		{"main-subnet-public-1", "10.0.1.0/24", "eu-west-1b", true},
		{"main-subnet-private-0", "10.0.2.0/24", "eu-west-1a", false},
		{"main-subnet-private-1", "10.0.3.0/24", "eu-west-1b", false},
	} {
		r := res("Subnet", s.name, map[string]any{"network": vpc.ID, "cidr": s.cidr, "zone": s.zone, "public": s.public})
		subnets = append(subnets, mustCreate(t, p, r))
		noop(t, p, r, subnets[i].ID)
	}
	srv.Edit(func(st *awstest.State) {
		if len(st.RouteTables) != 2 {
			t.Errorf("want a route table per public subnet, got %d", len(st.RouteTables))
		}
		for _, rt := range st.RouteTables {
			if !strings.HasPrefix(rt.Routes["0.0.0.0/0"], "igw-") || len(rt.Associations) != 1 {
				t.Errorf("route table %s: routes %v, associations %v", rt.ID, rt.Routes, rt.Associations)
			}
		}
	})

	sgR := res("SecurityGroup", "web-sg", map[string]any{"network": vpc.ID, "ingress": []any{
		rule("tcp", 22, "0.0.0.0/0"), rule("tcp", 80, "0.0.0.0/0"),
	}})
	sg := mustCreate(t, p, sgR)
	noop(t, p, sgR, sg.ID)

	keyR := res("SshKey", "deploy", map[string]any{"publicKey": keyA})
	key := mustCreate(t, p, keyR)
	if !strings.HasPrefix(key.ID, "key-") {
		t.Fatalf("key id %q", key.ID)
	}
	noop(t, p, keyR, key.ID)

	var vms []provider.Object
	var vmRs []provider.Resource
	for i, name := range []string{"web-0", "web-1"} {
		r := res("Vm", name, map[string]any{
			"network": vpc.ID, "subnet": subnets[i].ID, "securityGroups": []any{sg.ID},
			"sshKeys": []any{key.ID}, "size": "small", "image": "debian-12",
		})
		vm := mustCreate(t, p, r)
		if vm.Outputs["publicIp"] == "" || vm.Outputs["privateIp"] == "" {
			t.Errorf("vm %s outputs %v, want public and private IPs", name, vm.Outputs)
		}
		vms, vmRs = append(vms, vm), append(vmRs, r)
		noop(t, p, r, vm.ID)
	}
	srv.Edit(func(st *awstest.State) {
		in := st.Instances[vms[0].ID]
		if in.ImageID != "ami-0debian12" || in.Type != "t3.small" || in.State != "running" {
			t.Errorf("instance %+v: want the debian-12 AMI from SSM, t3.small, running", in)
		}
	})

	dbR := res("Database", "app-db", map[string]any{"network": vpc.ID, "engine": "postgres", "version": "16", "size": "small", "storageGb": float64(20)})
	db := mustCreate(t, p, dbR)
	if !strings.HasSuffix(db.ID, ":db:demo-app-db") || !strings.HasSuffix(db.Outputs["endpoint"].(string), ":5432") {
		t.Errorf("db %s outputs %v", db.ID, db.Outputs)
	}
	noop(t, p, dbR, db.ID)
	srv.Edit(func(st *awstest.State) {
		g := st.DBSubnetGroups["demo-app-db"]
		if d := cmp.Diff([]string{subnets[2].ID, subnets[3].ID}, g.Subnets); d != "" {
			t.Errorf("db subnet group should hold the private subnets (-want +got):\n%s", d)
		}
		if d := st.DBs["demo-app-db"]; !d.ManagedPassword || d.Version != "16.4" {
			t.Errorf("db %+v: want an AWS-managed password and the latest 16.x", d)
		}
	})

	tgR := res("TargetGroup", "web-tg", map[string]any{"port": float64(80), "protocol": "http", "targets": []any{vms[0].ID, vms[1].ID}})
	tg := mustCreate(t, p, tgR)
	noop(t, p, tgR, tg.ID)

	lbR := res("LoadBalancer", "web-lb", map[string]any{"network": vpc.ID, "port": float64(80), "targetGroup": tg.ID})
	lb := mustCreate(t, p, lbR)
	if !strings.Contains(lb.Outputs["endpoint"].(string), "elb.amazonaws.com") {
		t.Errorf("lb endpoint %v", lb.Outputs["endpoint"])
	}
	noop(t, p, lbR, lb.ID)

	t.Run("update security group by rule diff", func(t *testing.T) {
		auth, rev := srv.Calls("AuthorizeSecurityGroupIngress"), srv.Calls("RevokeSecurityGroupIngress")
		sgR.Properties["ingress"] = []any{rule("tcp", 22, "0.0.0.0/0"), rule("tcp", 443, "0.0.0.0/0")}
		if _, err := p.Update(ctx, sg.ID, sgR); err != nil {
			t.Fatal(err)
		}
		if a, r := srv.Calls("AuthorizeSecurityGroupIngress")-auth, srv.Calls("RevokeSecurityGroupIngress")-rev; a != 1 || r != 1 {
			t.Errorf("authorize calls %d, revoke calls %d; want 1 and 1", a, r)
		}
		srv.Edit(func(st *awstest.State) {
			want := []awstest.Rule{{Protocol: "tcp", FromPort: "22", ToPort: "22", Cidr: "0.0.0.0/0"}, {Protocol: "tcp", FromPort: "443", ToPort: "443", Cidr: "0.0.0.0/0"}}
			if d := cmp.Diff(want, st.Groups[sg.ID].Ingress); d != "" {
				t.Errorf("rules (-want +got):\n%s", d)
			}
		})
		noop(t, p, sgR, sg.ID)
	})

	t.Run("update vm size stops, modifies and starts", func(t *testing.T) {
		vmRs[0].Properties["size"] = "medium"
		if _, err := p.Update(ctx, vms[0].ID, vmRs[0]); err != nil {
			t.Fatal(err)
		}
		for _, a := range []string{"StopInstances", "ModifyInstanceAttribute", "StartInstances"} {
			if n := srv.Calls(a); n != 1 {
				t.Errorf("%s calls = %d, want 1", a, n)
			}
		}
		got := noop(t, p, vmRs[0], vms[0].ID)
		if got.Outputs["publicIp"] == "" {
			t.Errorf("vm lost its public IP")
		}
	})

	t.Run("update of immutable image is refused", func(t *testing.T) {
		r := vmRs[1]
		r.Properties = map[string]any{}
		for k, v := range vmRs[1].Properties {
			r.Properties[k] = v
		}
		r.Properties["image"] = "ubuntu-24.04"
		_, err := p.Update(ctx, vms[1].ID, r)
		if err == nil || !strings.Contains(err.Error(), "image") {
			t.Fatalf("update image: err = %v, want a refusal naming image", err)
		}
		if n := srv.Calls("RunInstances"); n != 2 {
			t.Errorf("RunInstances calls = %d, want 2 (no replace by the provider)", n)
		}
	})

	t.Run("destroy in reverse order leaves nothing", func(t *testing.T) {
		order := []struct{ typ, id string }{{"LoadBalancer", lb.ID}, {"TargetGroup", tg.ID}, {"Database", db.ID},
			{"Vm", vms[0].ID}, {"Vm", vms[1].ID}, {"SshKey", key.ID}, {"SecurityGroup", sg.ID}}
		for _, s := range subnets {
			order = append(order, struct{ typ, id string }{"Subnet", s.ID})
		}
		order = append(order, struct{ typ, id string }{"Vpc", vpc.ID})
		for _, o := range order {
			if err := p.Delete(ctx, o.typ, o.id); err != nil {
				t.Fatalf("delete %s %s: %v", o.typ, o.id, err)
			}
		}
		if inv := srv.Inventory(); len(inv) != 0 {
			t.Errorf("fake still holds %v", inv)
		}
		for _, o := range order {
			if _, err := p.Read(ctx, o.typ, o.id); !errors.Is(err, provider.ErrNotFound) {
				t.Errorf("read deleted %s %s: err = %v, want ErrNotFound", o.typ, o.id, err)
			}
			if err := p.Delete(ctx, o.typ, o.id); !errors.Is(err, provider.ErrNotFound) {
				t.Errorf("delete deleted %s %s: err = %v, want ErrNotFound", o.typ, o.id, err)
			}
		}
	})
}
