package hetzner_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
)

func TestCheckResources(t *testing.T) {
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
			[]provider.Refusal{{Path: "securityGroups", Reason: "hetzner load balancers take no firewalls; remove securityGroups (the firewalls of the target servers still apply)"}}},
		{"lb with empty security groups", "lb", "LoadBalancer", map[string]any{"targetGroup": "${tg}", "securityGroups": []any{}}, nil},
		{"lb without group", "lb", "LoadBalancer", map[string]any{"port": float64(80)},
			[]provider.Refusal{{Path: "targetGroup", Reason: "a load balancer on hetzner needs a targetGroup (its service forwards to the group's port)"}}},
		{"empty target group", "tg", "TargetGroup", map[string]any{"targets": []any{}},
			[]provider.Refusal{{Path: "targets", Reason: "a target group on hetzner needs at least one target (it exists as a label on its servers)"}}},
		{"tagged subnet", "sn", "Subnet", map[string]any{"tags": map[string]any{"a": "b"}},
			[]provider.Refusal{{Path: "tags", Reason: "hetzner subnets carry no labels, so they cannot be tagged"}}},
		{"reserved tag", "net", "Vpc", map[string]any{"tags": map[string]any{"kyku-managed": "false"}},
			[]provider.Refusal{{Path: "tags.kyku-managed", Reason: `tag "kyku-managed": this key is one of Kyku's own labels on hetzner`}}},
		{"bad tag value", "net", "Vpc", map[string]any{"tags": map[string]any{"owner": "a b"}},
			[]provider.Refusal{{Path: "tags.owner", Reason: `tag "owner": value "a b" is not a valid hetzner label value (at most 63 letters, digits, '-', '_', '.', starting and ending with a letter or digit)`}}},
		{"good tags", "net", "Vpc", map[string]any{"tags": map[string]any{"env": "prod", "example.com/team": "core", "kyku-test": "x"}}, nil},
		{"long name", long, "Vpc", map[string]any{},
			[]provider.Refusal{{Reason: "on hetzner a name must be at most 54 letters, digits, '-' or '_', starting and ending with a letter or digit (it becomes a label and a cloud name)"}}},
		{"vm hostname", "web_0", "Vm", map[string]any{"size": "small"},
			[]provider.Refusal{{Reason: "on hetzner a Vm name becomes the server's hostname and cannot contain '_'"}}},
		{"vm size", "web", "Vm", map[string]any{"size": "huge"},
			[]provider.Refusal{{Path: "size", Reason: `unknown size "huge" (use small, medium, large or a Hetzner server type such as cx23 or cpx22)`}}},
		{"vm server type", "web", "Vm", map[string]any{"size": "cpx21"}, nil},
		{"rule cidr", "sg", "SecurityGroup", map[string]any{"ingress": []any{map[string]any{"protocol": "tcp", "cidr": "10.0.0.5/16"}}},
			[]provider.Refusal{{Path: "ingress[0].cidr", Reason: `"10.0.0.5/16" is not a network address in CIDR notation (hetzner firewalls take e.g. 203.0.113.0/24)`}}},
		{"private source", "sg", "SecurityGroup", map[string]any{
			"ingress": []any{map[string]any{"port": float64(22), "cidr": "10.0.0.0/16"}, map[string]any{"port": float64(22), "cidr": "203.0.113.0/24"}},
			"egress":  []any{map[string]any{"protocol": "all", "cidr": "192.168.0.0/24"}, map[string]any{"protocol": "all", "cidr": "0.0.0.0/0"}}},
			[]provider.Refusal{
				{Path: "ingress[0].cidr", Reason: "10.0.0.0/16 is a private range, and hetzner firewalls filter only a server's public interface: traffic over a private network never passes them (it is not filtered), so this rule can never match; remove it, or name public addresses"},
				{Path: "egress[0].cidr", Reason: "192.168.0.0/24 is a private range, and hetzner firewalls filter only a server's public interface: traffic over a private network never passes them (it is not filtered), so this rule can never match; remove it, or name public addresses"},
			}},
		{"port range", "tg", "TargetGroup", map[string]any{"targets": []any{"${web}"}, "port": float64(70000)},
			[]provider.Refusal{{Path: "port", Reason: "port 70000 is not between 1 and 65535"}}},
		{"network smaller than /24", "net", "Vpc", map[string]any{"cidr": "10.0.0.0/25"},
			[]provider.Refusal{{Path: "cidr", Reason: "a hetzner network is /24 at the smallest, not /25"}}},
		{"public network", "net", "Vpc", map[string]any{"cidr": "8.8.0.0/16"},
			[]provider.Refusal{{Path: "cidr", Reason: "a hetzner network must be in a private range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16), not 8.8.0.0/16"}}},
		{"host bits", "net", "Vpc", map[string]any{"cidr": "10.0.1.0/16"},
			[]provider.Refusal{{Path: "cidr", Reason: `"10.0.1.0/16" has host bits set: the network is 10.0.0.0/16`}}},
		{"subnet zone", "sn", "Subnet", map[string]any{"network": "${net}", "cidr": "10.0.1.0/24", "zone": "mars-1"},
			[]provider.Refusal{{Path: "zone", Reason: `"mars-1" is not a hetzner network zone (eu-central, us-east, us-west, ap-southeast; the location's is the one its servers attach in)`}}},
		{"six firewalls", "web", "Vm", map[string]any{"securityGroups": []any{"${a}", "${b}", "${c}", "${d}", "${e}", "${f}"}},
			[]provider.Refusal{{Path: "securityGroups", Reason: "a hetzner server takes at most 5 firewalls, not 6"}}},
		{"five firewalls", "web", "Vm", map[string]any{"securityGroups": []any{"${a}", "${b}", "${c}", "${d}", "${e}"}}, nil},
		{"51 rules counting all as three", "sg", "SecurityGroup", map[string]any{"ingress": rules(17, "all")},
			[]provider.Refusal{{Reason: "a hetzner firewall holds at most 50 rules; these make 51 (a rule of protocol all is three: tcp, udp and icmp)"}}},
		{"50 rules", "sg", "SecurityGroup", map[string]any{"ingress": rules(16, "all"), "egress": rules(2, "tcp")}, nil},
		{"certificate", "lb", "LoadBalancer", map[string]any{"targetGroup": "${tg}", "certificateArn": "arn:aws:acm:x"},
			[]provider.Refusal{{Path: "certificateArn", Reason: "the hetzner provider does not terminate TLS yet (certificates are not supported); remove certificateArn"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := range tc.want {
				tc.want[i].Resource = tc.resName
			}
			got := p.CheckResources([]provider.Desired{{Name: tc.resName, Type: tc.typ, Properties: tc.props}})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("CheckResources (-want +got):\n%s", diff)
			}
		})
	}
}

// rules returns n firewall rules of proto, each from its own range.
func rules(n int, proto string) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"protocol": proto, "cidr": fmt.Sprintf("198.%d.0.0/16", i)}
	}
	return out
}

// A server or load balancer attaches only to a subnet of its location's
// network zone (fsn1: eu-central): a Vm in a subnet of another zone, or
// on a network without a subnet there, is refused at plan, not by the
// API's no_subnet_available half-way through an apply.
func TestZonesOfAttachments(t *testing.T) {
	p := setup(t).p // fsn1
	net := provider.Desired{Name: "net", Type: "Vpc", Properties: map[string]any{"cidr": "10.0.0.0/16", "distributeAcrossAzs": float64(0)}}
	far := provider.Desired{Name: "far", Type: "Subnet", Properties: map[string]any{"network": "${net}", "cidr": "10.0.1.0/24", "zone": "us-east"}}
	near := provider.Desired{Name: "near", Type: "Subnet", Properties: map[string]any{"network": "${net}", "cidr": "10.0.2.0/24", "zone": "eu-central"}}
	vm := func(name string, props map[string]any) provider.Desired {
		return provider.Desired{Name: name, Type: "Vm", Properties: props}
	}
	got := p.CheckResources([]provider.Desired{net, far,
		vm("in-far", map[string]any{"network": "${net}", "subnet": "${far}"}),
		vm("on-net", map[string]any{"network": "${net}"}),
		{Name: "lb", Type: "LoadBalancer", Properties: map[string]any{"network": "${net}", "targetGroup": "${tg}"}},
	})
	want := []provider.Refusal{
		{Resource: "in-far", Path: "subnet", Reason: "subnet far is in network zone us-east, and a server in fsn1 attaches only to a subnet of eu-central"},
		{Resource: "on-net", Path: "network", Reason: "network net has no subnet in fsn1's network zone eu-central, which the server attaches to: add one (a Subnet with zone eu-central, or distributeAcrossAzs on the network)"},
		{Resource: "lb", Path: "network", Reason: "network net has no subnet in fsn1's network zone eu-central, which the load balancer attaches to: add one (a Subnet with zone eu-central, or distributeAcrossAzs on the network)"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CheckResources (-want +got):\n%s", diff)
	}
	if got := p.CheckResources([]provider.Desired{net, far, near,
		vm("in-near", map[string]any{"network": "${net}", "subnet": "${near}"}),
		vm("on-net", map[string]any{"network": "${net}"}),
	}); len(got) != 0 {
		t.Errorf("a subnet in the zone: refused %v", got)
	}
}
