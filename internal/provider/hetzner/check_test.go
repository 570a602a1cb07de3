package hetzner_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
)

func TestCheckResource(t *testing.T) {
	p := setup(t).p
	long := strings.Repeat("a", 55)
	for _, tc := range []struct {
		name, resName, typ string
		props              map[string]any
		want               []provider.Refusal
	}{
		{"database", "app-db", "Database", map[string]any{"engine": "postgres"},
			[]provider.Refusal{{Reason: "hetzner has no managed databases; run the database on a Vm, or put it under another provider"}}},
		{"lb with security groups", "lb", "LoadBalancer", map[string]any{"targetGroup": "${tg}", "securityGroups": []any{"${sg}"}},
			[]provider.Refusal{{Property: "securityGroups", Reason: "hetzner load balancers take no firewalls; remove securityGroups (the firewalls of the target servers still apply)"}}},
		{"lb with empty security groups", "lb", "LoadBalancer", map[string]any{"targetGroup": "${tg}", "securityGroups": []any{}}, nil},
		{"lb without group", "lb", "LoadBalancer", map[string]any{"port": float64(80)},
			[]provider.Refusal{{Property: "targetGroup", Reason: "a load balancer on hetzner needs a targetGroup (its service forwards to the group's port)"}}},
		{"empty target group", "tg", "TargetGroup", map[string]any{"targets": []any{}},
			[]provider.Refusal{{Property: "targets", Reason: "a target group on hetzner needs at least one target (it exists as a label on its servers)"}}},
		{"tagged subnet", "sn", "Subnet", map[string]any{"tags": map[string]any{"a": "b"}},
			[]provider.Refusal{{Property: "tags", Reason: "hetzner subnets carry no labels, so they cannot be tagged"}}},
		{"reserved tag", "net", "Vpc", map[string]any{"tags": map[string]any{"kyku-managed": "false"}},
			[]provider.Refusal{{Property: "tags", Reason: `tag "kyku-managed": this key is one of Kyku's own labels on hetzner`}}},
		{"bad tag value", "net", "Vpc", map[string]any{"tags": map[string]any{"owner": "a b"}},
			[]provider.Refusal{{Property: "tags", Reason: `tag "owner": value "a b" is not a valid hetzner label value (at most 63 letters, digits, '-', '_', '.', starting and ending with a letter or digit)`}}},
		{"good tags", "net", "Vpc", map[string]any{"tags": map[string]any{"env": "prod", "example.com/team": "core", "kyku-test": "x"}}, nil},
		{"long name", long, "Vpc", map[string]any{},
			[]provider.Refusal{{Reason: "on hetzner a name must be at most 54 letters, digits, '-' or '_', starting and ending with a letter or digit (it becomes a label and a cloud name)"}}},
		{"vm hostname", "web_0", "Vm", map[string]any{"size": "small"},
			[]provider.Refusal{{Reason: "on hetzner a Vm name becomes the server's hostname and cannot contain '_'"}}},
		{"vm size", "web", "Vm", map[string]any{"size": "huge"},
			[]provider.Refusal{{Property: "size", Reason: `unknown size "huge" (use small, medium, large or a Hetzner server type such as cx23 or cpx21)`}}},
		{"vm server type", "web", "Vm", map[string]any{"size": "cpx21"}, nil},
		{"rule cidr", "sg", "SecurityGroup", map[string]any{"ingress": []any{map[string]any{"protocol": "tcp", "cidr": "10.0.0.5/16"}}},
			[]provider.Refusal{{Property: "ingress", Reason: `rule 0: cidr "10.0.0.5/16" is not a network address in CIDR notation (hetzner firewalls take e.g. 10.0.0.0/16)`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, p.CheckResource(tc.resName, tc.typ, tc.props)); diff != "" {
				t.Errorf("CheckResource (-want +got):\n%s", diff)
			}
		})
	}
}
