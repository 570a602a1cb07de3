package aws_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
)

// TestCheckResources: AWS's limits, value rules and name rules at plan
// time, each with its path.
func TestCheckResources(t *testing.T) {
	p, _ := setup(t)
	rules := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = map[string]any{"protocol": "tcp", "port": float64(1000 + i), "cidr": "0.0.0.0/0"}
		}
		return out
	}
	groups := []any{"${a}", "${b}", "${c}", "${d}", "${e}", "${f}"}
	got := p.CheckResources([]provider.Desired{
		{Name: "big", Type: "Vpc", Properties: map[string]any{"cidr": "10.0.0.0/8"}},
		{Name: "bits", Type: "Subnet", Properties: map[string]any{"cidr": "10.0.1.7/24"}},
		{Name: "sg", Type: "SecurityGroup", Properties: map[string]any{"ingress": rules(61), "egress": []any{
			map[string]any{"protocol": "tcp", "port": float64(70000), "cidr": "10.0.0.1/16"},
		}}},
		{Name: "ok-sg", Type: "SecurityGroup", Properties: map[string]any{"ingress": rules(60)}},
		{Name: "web", Type: "Vm", Properties: map[string]any{"securityGroups": groups, "sshKeys": []any{"${k1}", "${k2}"}, "size": "huge", "tags": map[string]any{"kyku:name": "x"}}},
		{Name: "db", Type: "Database", Properties: map[string]any{"storageGb": float64(10), "size": "small"}},
		{Name: "app_db", Type: "Database", Properties: map[string]any{"storageGb": float64(20)}},
		{Name: "lb", Type: "LoadBalancer", Properties: map[string]any{"port": float64(443), "certificateArn": "my-cert"}},
	})
	want := []provider.Refusal{
		{Resource: "big", Path: "cidr", Reason: "an AWS CIDR block is /16 to /28, not /8"},
		{Resource: "bits", Path: "cidr", Reason: `"10.0.1.7/24" has host bits set: the network is 10.0.1.0/24`},
		{Resource: "sg", Path: "ingress", Reason: "an AWS security group takes at most 60 ingress rules, not 61"},
		{Resource: "sg", Path: "egress[0].cidr", Reason: `"10.0.0.1/16" is not a network address in CIDR notation (e.g. 10.0.0.0/16)`},
		{Resource: "sg", Path: "egress[0].port", Reason: "port 70000 is not between 1 and 65535"},
		{Resource: "web", Path: "securityGroups", Reason: "an EC2 instance takes at most 5 security groups, not 6"},
		{Resource: "web", Path: "sshKeys", Reason: "an EC2 instance takes one key pair, not 2"},
		{Resource: "web", Path: "size", Reason: `unknown size "huge" (use small, medium, large or an instance type such as t3.micro)`},
		{Resource: "web", Path: "tags.kyku:name", Reason: `tag "kyku:name" is one of Kyku's own on AWS`},
		{Resource: "db", Path: "storageGb", Reason: "RDS storage is 20 to 65536 GB, not 10"},
		{Resource: "app_db", Reason: `aws refuses its name: RDS instance identifier "db-<deploy prefix>-app_db" may hold only letters, digits and hyphens; rename the resource`},
		{Resource: "lb", Path: "certificateArn", Reason: `"my-cert" is not an ACM (arn:aws:acm:…) or IAM (arn:aws:iam::…) certificate ARN`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CheckResources (-want +got):\n%s", diff)
	}
}

// The fake refuses, as EC2 does, a subnet outside its VPC or overlapping
// another, and a 61st rule of a security group.
func TestFakeEC2Limits(t *testing.T) {
	p, _ := setup(t)
	ctx := t.Context()
	vpc := mustCreate(t, p, res("Vpc", "net", map[string]any{"cidr": "10.0.0.0/16"}))
	mustCreate(t, p, res("Subnet", "a", map[string]any{"network": vpc.ID, "cidr": "10.0.1.0/24", "zone": "eu-west-1a"}))
	for name, cidr := range map[string]string{"outside": "10.9.0.0/24", "overlap": "10.0.1.128/25"} {
		_, err := p.Create(ctx, res("Subnet", name, map[string]any{"network": vpc.ID, "cidr": cidr, "zone": "eu-west-1a"}))
		if err == nil || !strings.Contains(err.Error(), "InvalidSubnet") {
			t.Errorf("subnet %s (%s): %v; want InvalidSubnet", name, cidr, err)
		}
	}
	var ingress []any
	for i := range 61 {
		ingress = append(ingress, map[string]any{"protocol": "tcp", "port": float64(1000 + i), "cidr": "0.0.0.0/0"})
	}
	_, err := p.Create(ctx, res("SecurityGroup", "many", map[string]any{"network": vpc.ID, "ingress": ingress}))
	if err == nil || !strings.Contains(err.Error(), "RulesPerSecurityGroupLimitExceeded") {
		t.Errorf("61 rules: %v", err)
	}
}
