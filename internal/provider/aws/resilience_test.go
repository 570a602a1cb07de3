package aws_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/aws/awstest"
)

// network creates a Vpc with one public subnet and a security group.
func network(t *testing.T, p *aws.Provider) (vpc, subnet, sg string) {
	t.Helper()
	vpc = mustCreate(t, p, res("Vpc", "net", map[string]any{"cidr": "10.1.0.0/16"})).ID
	subnet = mustCreate(t, p, res("Subnet", "net-a", map[string]any{"network": vpc, "cidr": "10.1.0.0/24", "zone": "eu-west-1a", "public": true})).ID
	sg = mustCreate(t, p, res("SecurityGroup", "net-sg", map[string]any{"network": vpc, "ingress": []any{rule("tcp", 22, "10.0.0.0/8")}})).ID
	return vpc, subnet, sg
}

// A crash between the AWS call and the state write means the engine calls
// Create again with the same cloud name: the object is found by tag, not
// duplicated.
func TestCreateIsIdempotentByCloudName(t *testing.T) {
	p, srv := setup(t)
	vpc, subnet, sg := network(t, p)
	again, err := p.Create(t.Context(), res("Vpc", "net", map[string]any{"cidr": "10.1.0.0/16"}))
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != vpc || srv.Calls("CreateVpc") != 1 || srv.Calls("CreateInternetGateway") != 1 {
		t.Errorf("second create: id %s (want %s), CreateVpc %d, CreateInternetGateway %d; want one of each",
			again.ID, vpc, srv.Calls("CreateVpc"), srv.Calls("CreateInternetGateway"))
	}
	vmR := res("Vm", "app", map[string]any{"subnet": subnet, "securityGroups": []any{sg}, "image": "ami-0123456789", "size": "t3.micro"})
	first := mustCreate(t, p, vmR)
	second := mustCreate(t, p, vmR)
	if first.ID != second.ID || srv.Calls("RunInstances") != 1 {
		t.Errorf("vm created twice: %s, %s, RunInstances %d", first.ID, second.ID, srv.Calls("RunInstances"))
	}
	sg2 := mustCreate(t, p, res("SecurityGroup", "net-sg", map[string]any{"network": vpc, "ingress": []any{rule("tcp", 22, "10.0.0.0/8")}}))
	if sg2.ID != sg || srv.Calls("CreateSecurityGroup") != 1 || srv.Calls("AuthorizeSecurityGroupIngress") != 1 {
		t.Errorf("security group recreated or re-authorized: %s vs %s, calls %d/%d", sg2.ID, sg,
			srv.Calls("CreateSecurityGroup"), srv.Calls("AuthorizeSecurityGroupIngress"))
	}
	obj, err := p.Lookup(t.Context(), "Vm", "demo-app")
	if err != nil || obj.ID != first.ID {
		t.Errorf("lookup by cloud name: %v, %v", obj.ID, err)
	}
	if _, err := p.Lookup(t.Context(), "Vm", "demo-nothing"); !errors.Is(err, provider.ErrNotFound) {
		t.Errorf("lookup of a missing name: err = %v, want ErrNotFound", err)
	}
}

func TestRetries(t *testing.T) {
	for _, tc := range []struct {
		name          string
		inject        func(srv *awstest.Server)
		action        string
		wantRetries   int64
		wantTransient bool
	}{
		{"ec2 throttling", func(s *awstest.Server) { s.Throttle("CreateVpc", 2) }, "CreateVpc", 2, false},
		{"eventual consistency after create", func(s *awstest.Server) {
			s.Fail("AttachInternetGateway", 2, 400, "InvalidVpcID.NotFound")
		}, "AttachInternetGateway", 2, false},
		{"5xx", func(s *awstest.Server) { s.Fail("CreateInternetGateway", 1, 500, "InternalError") }, "CreateInternetGateway", 1, false},
		{"query api throttling", func(s *awstest.Server) { s.Throttle("DescribeAvailabilityZones", 1) }, "DescribeAvailabilityZones", 1, false},
		{"throttling beyond the bound is transient", func(s *awstest.Server) { s.Throttle("CreateVpc", 10) }, "CreateVpc", 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, srv := setup(t)
			tc.inject(srv)
			_, err := p.Zones(t.Context())
			if err == nil {
				_, err = p.Create(t.Context(), res("Vpc", "net", map[string]any{"cidr": "10.1.0.0/16"}))
			}
			if got := provider.IsTransient(err); got != tc.wantTransient {
				t.Fatalf("err = %v; transient %v, want %v", err, got, tc.wantTransient)
			}
			if p.Retries() != tc.wantRetries {
				t.Errorf("retries = %d, want %d", p.Retries(), tc.wantRetries)
			}
			if want := int(tc.wantRetries) + 1; srv.Calls(tc.action) != want {
				t.Errorf("%s calls = %d, want %d", tc.action, srv.Calls(tc.action), want)
			}
		})
	}
}

func TestQueryThrottlingRetried(t *testing.T) {
	p, srv := setup(t)
	srv.SetLag(0) // count throttling retries only
	vpc, subnet, _ := network(t, p)
	mustCreate(t, p, res("Subnet", "net-b", map[string]any{"network": vpc, "cidr": "10.1.1.0/24", "zone": "eu-west-1b"}))
	srv.Throttle("CreateDBInstance", 2)
	srv.Throttle("DescribeTargetGroups", 1)
	db := mustCreate(t, p, res("Database", "db", map[string]any{"network": vpc, "engine": "mysql", "size": "db.t3.micro", "storageGb": float64(20)}))
	if srv.Calls("CreateDBInstance") != 3 || !strings.HasSuffix(db.Outputs["endpoint"].(string), ":3306") {
		t.Errorf("CreateDBInstance calls %d, endpoint %v", srv.Calls("CreateDBInstance"), db.Outputs["endpoint"])
	}
	vm := mustCreate(t, p, res("Vm", "app", map[string]any{"subnet": subnet, "image": "amazon-linux-2023"}))
	mustCreate(t, p, res("TargetGroup", "tg", map[string]any{"targets": []any{vm.ID}}))
	if p.Retries() != 3 {
		t.Errorf("retries = %d, want 3", p.Retries())
	}
}

func TestDriftIsRead(t *testing.T) {
	p, srv := setup(t)
	_, _, sg := network(t, p)
	srv.Edit(func(st *awstest.State) {
		g := st.Groups[sg]
		g.Ingress = append(g.Ingress, awstest.Rule{Protocol: "tcp", FromPort: "3389", ToPort: "3389", Cidr: "0.0.0.0/0"})
		g.Tags["team"] = "someone-else"
	})
	got, err := p.Read(t.Context(), "SecurityGroup", sg)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{rule("tcp", 22, "10.0.0.0/8"), rule("tcp", 3389, "0.0.0.0/0")}
	if d := cmp.Diff(want, got.Properties["ingress"]); d != "" {
		t.Errorf("drifted ingress (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]any{"team": "someone-else"}, got.Properties["tags"]); d != "" {
		t.Errorf("drifted tags (-want +got):\n%s", d)
	}
}

// Kyku names never reach AWS where IDs belong; if one did, AWS (and the
// fake) reject it as malformed, and that is not retried.
func TestKykuNameWhereIDBelongsIsRejected(t *testing.T) {
	p, srv := setup(t)
	_, err := p.Create(t.Context(), res("Subnet", "s", map[string]any{"network": "net", "cidr": "10.1.0.0/24", "zone": "eu-west-1a"}))
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "InvalidVpcID.Malformed" || provider.IsTransient(err) {
		t.Fatalf("err = %v, want a permanent InvalidVpcID.Malformed", err)
	}
	if srv.Calls("CreateSubnet") != 1 {
		t.Errorf("CreateSubnet calls = %d, want 1", srv.Calls("CreateSubnet"))
	}
}

func TestWaitIsCancellable(t *testing.T) {
	p, _ := setup(t)
	_, subnet, _ := network(t, p)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := p.Create(ctx, res("Vm", "app", map[string]any{"subnet": subnet, "image": "debian-12"}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestUnknownAliasesAreErrors(t *testing.T) {
	p, _ := setup(t)
	_, subnet, _ := network(t, p)
	for _, props := range []map[string]any{
		{"subnet": subnet, "image": "windows-95"},
		{"subnet": subnet, "image": "debian-12", "size": "huge"},
	} {
		if _, err := p.Create(t.Context(), res("Vm", "bad", props)); err == nil {
			t.Errorf("create with %v succeeded", props)
		}
	}
}
