package hetzner_test

import (
	"slices"
	"testing"

	"github.com/kyku/action/internal/provider/hetzner/hcloudtest"
)

// A rule from 0.0.0.0/0 is a rule from everyone: Hetzner servers have
// IPv6 addresses too, so the firewall rule's sources are 0.0.0.0/0 and
// ::/0, read back as the one rule written (no drift). A narrower range
// stays as written.
func TestRuleFromEveryoneCoversIPv6(t *testing.T) {
	e := setup(t)
	n := mustCreate(t, e.p, vpc("net"))
	r := res("SecurityGroup", "fw", map[string]any{"network": n.ID,
		"ingress": []any{map[string]any{"port": float64(80), "cidr": "0.0.0.0/0"}, map[string]any{"port": float64(22), "cidr": "203.0.113.0/24"}},
		"egress":  []any{map[string]any{"protocol": "all", "cidr": "0.0.0.0/0"}}})
	fw := mustCreate(t, e.p, r)
	e.cloud.Edit(func(st *hcloudtest.State) {
		for _, f := range st.Firewalls {
			for _, rule := range f.Rules {
				ips := append(append([]string{}, rule.SourceIPs...), rule.DestinationIPs...)
				everyone := slices.Contains(ips, "0.0.0.0/0")
				if everyone != slices.Contains(ips, "::/0") {
					t.Errorf("rule %s %s %v: 0.0.0.0/0 and ::/0 must go together", rule.Direction, rule.Protocol, ips)
				}
			}
		}
	})
	got, err := e.p.Read(t.Context(), "SecurityGroup", fw.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Properties["ingress"].([]any)) != 2 || len(got.Properties["egress"].([]any)) != 1 {
		t.Errorf("read back ingress %v, egress %v; want the rules as written", got.Properties["ingress"], got.Properties["egress"])
	}
}
