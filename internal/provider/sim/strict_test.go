package sim_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
)

// TestCheckResources: what the simulated cloud refuses is refused at plan
// time, each value with its path, all at once.
func TestCheckResources(t *testing.T) {
	p, err := sim.New(sim.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	d := func(name, typ string, props map[string]any) provider.Desired {
		return provider.Desired{Name: name, Type: typ, Properties: props}
	}
	rule := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	got := p.CheckResources([]provider.Desired{
		d("net", "Vpc", map[string]any{"cidr": "10.0.1.0/16"}),
		d("net2", "Vpc", map[string]any{"cidr": "everywhere"}),
		d("net3", "Vpc", map[string]any{"cidr": "10.0.0.0/16"}),
		d("ok-net", "Vpc", map[string]any{"cidr": "${var.cidr}"}),
		d("a", "Subnet", map[string]any{"network": "${net3}", "cidr": "10.1.0.0/24", "zone": "mars-1"}),
		d("b", "Subnet", map[string]any{"network": "${net3}", "cidr": "10.0.0.0/24", "zone": "sim-a"}),
		d("c", "Subnet", map[string]any{"network": "${net3}", "cidr": "10.0.0.128/25", "zone": "sim-b"}),
		d("sg", "SecurityGroup", map[string]any{"network": "${net3}", "ingress": []any{
			rule("protocol", "tcp", "port", float64(70000), "cidr", "0.0.0.0/0"),
			rule("protocol", "icmp", "port", float64(8), "cidr", "10.0.0.5/8"),
			rule("protocol", "tcp", "port", float64(22), "cidr", "::/0"),
		}}),
		d("web", "Vm", map[string]any{"network": "${net}", "subnet": "${b}", "size": "gigantic", "image": "windows-95"}),
		d("db", "Database", map[string]any{"engine": "postgres", "size": "small", "storageGb": float64(-10), "version": "latest"}),
		d("tg", "TargetGroup", map[string]any{"port": float64(0)}),
		d("_private", "SecurityGroup", map[string]any{"network": "${net3}"}),
		d(strings.Repeat("x", 55), "SshKey", map[string]any{"publicKey": "k"}),
	})
	want := []provider.Refusal{
		{Resource: "net", Path: "cidr", Reason: `"10.0.1.0/16" has host bits set: the network is 10.0.0.0/16`},
		{Resource: "net2", Path: "cidr", Reason: `"everywhere" is not an IPv4 network in CIDR notation (e.g. 10.0.0.0/16)`},
		{Resource: "a", Path: "zone", Reason: `the sim offers zones sim-a, sim-b, sim-c, not "mars-1"`},
		{Resource: "a", Path: "cidr", Reason: `10.1.0.0/24 is not inside the network's range 10.0.0.0/16 (of Vpc "net3")`},
		{Resource: "sg", Path: "ingress[0].port", Reason: "port 70000 is not between 1 and 65535"},
		{Resource: "sg", Path: "ingress[1].port", Reason: "a rule of protocol icmp takes no port"},
		{Resource: "sg", Path: "ingress[1].cidr", Reason: `"10.0.0.5/8" has host bits set: the range is 10.0.0.0/8`},
		{Resource: "web", Path: "size", Reason: `the sim has sizes small, medium, large, not "gigantic"`},
		{Resource: "web", Path: "image", Reason: `the sim knows images amazon-linux-2023, debian-12, debian-13, rocky-9, ubuntu-22.04, ubuntu-24.04, not "windows-95"`},
		{Resource: "web", Path: "subnet", Reason: `subnet "b" is in network "net3", not in the Vm's network "net"`},
		{Resource: "db", Path: "storageGb", Reason: "storage must be 1 to 65536 GB, not -10"},
		{Resource: "db", Path: "version", Reason: `version "latest" is not digits and dots (e.g. 16 or 8.0.36)`},
		{Resource: "tg", Path: "port", Reason: "port 0 is not between 1 and 65535"},
		{Resource: "_private", Reason: `a sim name is letters, digits, '-', '_' and '.', starting with a letter or digit, not "_private"`},
		{Resource: strings.Repeat("x", 55), Reason: `a sim name is at most 54 characters (the cloud name adds the deploy prefix), "` + strings.Repeat("x", 55) + `" has 55`},
		{Resource: "c", Path: "cidr", Reason: `10.0.0.128/25 overlaps 10.0.0.0/24 of subnet "b"`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CheckResources (-want +got):\n%s", diff)
	}
}

// TestTheAPIRefusesWhatThePlanRefuses: the simulated API refuses the same
// values when a request carries them (a plan made elsewhere, a hand-edited
// state), and a subnet that overlaps one already in the cloud.
func TestTheAPIRefusesWhatThePlanRefuses(t *testing.T) {
	ctx := t.Context()
	p, err := sim.New(sim.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	create := func(name, typ string, props map[string]any) (provider.Object, error) {
		return p.Create(ctx, provider.Resource{Name: name, Type: typ, CloudName: "pfx-" + name, Prefix: "pfx", Properties: props})
	}
	net, err := create("net", "Vpc", map[string]any{"cidr": "10.0.0.0/16"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := create("other", "Vpc", map[string]any{"cidr": "10.0.0.0/16"})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := create("sub", "Subnet", map[string]any{"network": net.ID, "cidr": "10.0.1.0/24", "zone": "sim-a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := create("twin", "Subnet", map[string]any{"network": other.ID, "cidr": "10.0.1.0/24", "zone": "sim-a"}); err != nil {
		t.Errorf("a subnet of another network with the same range: %v", err)
	}
	for _, tc := range []struct {
		name, typ string
		props     map[string]any
		want      string
	}{
		{"v", "Vpc", map[string]any{"cidr": "10.0.1.0/16"}, `sim: Vpc "v": property cidr: "10.0.1.0/16" has host bits set: the network is 10.0.0.0/16`},
		{"s", "Subnet", map[string]any{"network": net.ID, "cidr": "10.9.0.0/24", "zone": "sim-a"}, `sim: Subnet "s": property cidr: 10.9.0.0/24 is not inside the network's range 10.0.0.0/16`},
		{"s2", "Subnet", map[string]any{"network": net.ID, "cidr": "10.0.1.0/25", "zone": "sim-a"}, `sim: Subnet "s2": property cidr: 10.0.1.0/25 overlaps 10.0.1.0/24 of subnet ` + sub.ID},
		{"s3", "Subnet", map[string]any{"network": net.ID, "cidr": "10.0.2.0/24", "zone": "mars-1"}, `sim: Subnet "s3": property zone: the sim offers zones sim-a, sim-b, sim-c, not "mars-1"`},
		{"w", "Vm", map[string]any{"network": other.ID, "subnet": sub.ID, "image": "debian-12"}, `sim: Vm "w": property subnet: subnet ` + sub.ID + ` is in network ` + net.ID + `, not in the Vm's network ` + other.ID},
		{"w2", "Vm", map[string]any{"image": "debian-12", "size": "gigantic"}, `sim: Vm "w2": property size: the sim has sizes small, medium, large, not "gigantic"`},
		{"d", "Database", map[string]any{"engine": "postgres", "storageGb": float64(0)}, `sim: Database "d": property storageGb: storage must be 1 to 65536 GB, not 0`},
		{"l", "LoadBalancer", map[string]any{"port": float64(70000)}, `sim: LoadBalancer "l": property port: port 70000 is not between 1 and 65535`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := create(tc.name, tc.typ, tc.props)
			if err == nil || err.Error() != tc.want {
				t.Errorf("Create: %v\nwant %s", err, tc.want)
			}
		})
	}
	if err := p.CheckName("Vm", "pfx-"+strings.Repeat("x", 60)); err == nil {
		t.Error("CheckName accepted a 64-character cloud name")
	}
}
