package hetzner_test

import (
	"errors"
	"testing"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/hetzner/hcloudtest"
)

// TestTargetGroupIsALabel: a target group is the label kyku-tg/<cloud
// name> on its servers; changing its port moves the load balancer's
// service; deleting it removes the labels (and it then reads as gone).
func TestTargetGroupIsALabel(t *testing.T) {
	e := setup(t)
	ctx := t.Context()
	n := mustCreate(t, e.p, vpc("net"))
	sn := mustCreate(t, e.p, res("Subnet", "sn", map[string]any{"network": n.ID, "cidr": "10.42.1.0/24", "zone": "eu-central"}))
	var vms []any
	for _, name := range []string{"a", "b"} {
		vms = append(vms, mustCreate(t, e.p, res("Vm", name, map[string]any{"network": n.ID, "subnet": sn.ID, "image": "debian-12"})).ID)
	}
	creates := func() int {
		n := 0
		for _, route := range []string{"POST /networks", "POST /servers", "POST /firewalls", "POST /ssh_keys", "POST /load_balancers"} {
			n += e.cloud.Calls(route)
		}
		return n
	}
	before := creates()
	tgRes := res("TargetGroup", "tg", map[string]any{"port": float64(8080), "protocol": "http", "targets": vms[:1]})
	tg := mustCreate(t, e.p, tgRes)
	if tg.ID != "kyku-tg/kyku0001-tg" {
		t.Errorf("target group ID = %q, want its label key kyku-tg/kyku0001-tg", tg.ID)
	}
	if creates() != before {
		t.Errorf("creating a target group created an API object; it is a label only")
	}
	lb := mustCreate(t, e.p, res("LoadBalancer", "lb", map[string]any{"network": n.ID, "port": float64(80), "targetGroup": tg.ID}))
	if lb.Outputs["endpoint"] == "" {
		t.Errorf("load balancer endpoint empty: %v", lb.Outputs)
	}

	// Both servers, port 9090: labels follow, and so does the LB service.
	tgRes.Properties = map[string]any{"port": float64(9090), "protocol": "http", "targets": vms}
	up, err := e.p.Update(ctx, tg.ID, tgRes)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(up.Properties["targets"].([]any)); got != 2 || up.Properties["port"] != float64(9090) {
		t.Errorf("after update: %v", up.Properties)
	}
	e.cloud.Edit(func(st *hcloudtest.State) {
		for _, l := range st.LoadBalancers {
			if len(l.Services) != 1 || l.Services[0].ListenPort != 80 || l.Services[0].DestinationPort != 9090 || l.Services[0].Protocol != "http" {
				t.Errorf("LB services %+v, want http 80 → 9090", l.Services)
			}
			if len(l.Targets) != 1 || l.Targets[0].Selector != tg.ID || !l.Targets[0].UsePrivateIP {
				t.Errorf("LB targets %+v, want the group's selector over the private network", l.Targets)
			}
		}
		for _, s := range st.Servers {
			if s.Labels[tg.ID] != "http-9090" {
				t.Errorf("server %s labels %v, want %s=http-9090", s.Name, s.Labels, tg.ID)
			}
		}
	})

	if err := e.p.Delete(ctx, "LoadBalancer", lb.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.p.Delete(ctx, "TargetGroup", tg.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.p.Read(ctx, "TargetGroup", tg.ID); !errors.Is(err, provider.ErrNotFound) {
		t.Errorf("Read after Delete: err = %v, want ErrNotFound", err)
	}
	e.cloud.Edit(func(st *hcloudtest.State) {
		for _, s := range st.Servers {
			if _, ok := s.Labels[tg.ID]; ok {
				t.Errorf("server %s still carries %s", s.Name, tg.ID)
			}
		}
	})
}
