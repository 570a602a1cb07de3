package hetzner

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sort"
	"strconv"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/property"
	"github.com/kyku/action/internal/value"
)

// firewallKind maps SecurityGroup to a firewall. Hetzner firewalls belong
// to no network: the network reference is kept in the kyku-network label.
// The firewall is applied to the servers whose Vm lists it (the Vm does
// that). Rules: {protocol tcp|udp|icmp|all, port, cidr}; tcp/udp without a
// port is the whole range 1-65535; "all" becomes three rules (tcp, udp,
// icmp) described "kyku:all" and is read back as one. ingress rules have
// the cidr as source, egress rules as destination; with no egress rules
// Hetzner allows all outbound traffic, as Kyku does.
type firewallKind struct{ p *Provider }

const allDescription = "kyku:all"

// everyone are the networks of a rule from or to 0.0.0.0/0: every IPv4
// address and, since servers get IPv6 addresses, every IPv6 one (::/0).
var everyone = []net.IPNet{
	{IP: net.IPv4zero.To4(), Mask: net.CIDRMask(0, 32)},
	{IP: net.IPv6zero, Mask: net.CIDRMask(0, 128)},
}

// toRules turns the Kyku rules of one direction into Hetzner rules; a
// rule from (or to) 0.0.0.0/0 covers ::/0 too.
func toRules(dir hcloud.FirewallRuleDirection, rules []any) ([]hcloud.FirewallRule, error) {
	var out []hcloud.FirewallRule
	for i, raw := range rules {
		m, _ := raw.(map[string]any)
		cidr := property.String(m, "cidr")
		_, ipn, err := net.ParseCIDR(cidr)
		if err != nil || ipn.String() != cidr {
			return nil, fmt.Errorf("rule %d: cidr %q is not a network in CIDR notation", i, cidr)
		}
		proto := property.StringOr(m, "protocol", "tcp")
		port := ""
		if _, ok := m["port"]; ok {
			port = strconv.Itoa(property.Int(m, "port", 0))
		}
		mk := func(p hcloud.FirewallRuleProtocol, port string, desc *string) hcloud.FirewallRule {
			r := hcloud.FirewallRule{Direction: dir, Protocol: p, Description: desc}
			if port != "" {
				r.Port = hcloud.Ptr(port)
			}
			ips := []net.IPNet{*ipn}
			if cidr == "0.0.0.0/0" {
				ips = everyone
			}
			if dir == hcloud.FirewallRuleDirectionIn {
				r.SourceIPs = ips
			} else {
				r.DestinationIPs = ips
			}
			return r
		}
		switch proto {
		case "tcp", "udp":
			if port == "" {
				port = "1-65535"
			}
			out = append(out, mk(hcloud.FirewallRuleProtocol(proto), port, nil))
		case "icmp":
			if port != "" {
				return nil, fmt.Errorf("rule %d: icmp takes no port", i)
			}
			out = append(out, mk(hcloud.FirewallRuleProtocolICMP, "", nil))
		case "all":
			if port != "" {
				return nil, fmt.Errorf("rule %d: protocol all takes no port", i)
			}
			d := allDescription
			out = append(out, mk(hcloud.FirewallRuleProtocolTCP, "1-65535", &d), mk(hcloud.FirewallRuleProtocolUDP, "1-65535", &d), mk(hcloud.FirewallRuleProtocolICMP, "", &d))
		default:
			return nil, fmt.Errorf("rule %d: protocol %q is not tcp, udp, icmp or all", i, proto)
		}
	}
	return out, nil
}

// fromRules turns Hetzner rules back into Kyku's ingress and egress,
// sorted; nil when a direction has none.
func fromRules(rules []hcloud.FirewallRule) (ingress, egress []any) {
	seen := map[string]bool{}
	add := func(dir hcloud.FirewallRuleDirection, rule map[string]any) {
		b, _ := json.Marshal(rule)
		key := string(dir) + string(b)
		if seen[key] {
			return
		}
		seen[key] = true
		if dir == hcloud.FirewallRuleDirectionIn {
			ingress = append(ingress, rule)
		} else {
			egress = append(egress, rule)
		}
	}
	for _, r := range rules {
		ips := r.SourceIPs
		if r.Direction == hcloud.FirewallRuleDirectionOut {
			ips = r.DestinationIPs
		}
		all4 := false
		for _, ipn := range ips {
			all4 = all4 || ipn.String() == "0.0.0.0/0"
		}
		for _, ipn := range ips {
			if all4 && ipn.String() == "::/0" {
				continue // part of the rule from 0.0.0.0/0
			}
			rule := map[string]any{"protocol": string(r.Protocol), "cidr": ipn.String()}
			switch {
			case r.Description != nil && *r.Description == allDescription:
				rule["protocol"] = "all"
			case r.Port != nil && *r.Port == "1-65535", r.Port != nil && *r.Port == "any", r.Port == nil:
			case r.Port != nil:
				if n, err := strconv.Atoi(*r.Port); err == nil {
					rule["port"] = float64(n)
				} else {
					rule["port"] = *r.Port // a range set in the console: drift, shown as is
				}
			}
			add(r.Direction, rule)
		}
	}
	sortRules(ingress)
	sortRules(egress)
	return ingress, egress
}

func sortRules(rules []any) {
	sort.Slice(rules, func(i, j int) bool {
		a, _ := json.Marshal(rules[i])
		b, _ := json.Marshal(rules[j])
		return string(a) < string(b)
	})
}

func wantRules(r provider.Resource) ([]hcloud.FirewallRule, error) {
	in, err := toRules(hcloud.FirewallRuleDirectionIn, anyList(r.Properties["ingress"]))
	if err != nil {
		return nil, fmt.Errorf("ingress: %w", err)
	}
	out, err := toRules(hcloud.FirewallRuleDirectionOut, anyList(r.Properties["egress"]))
	if err != nil {
		return nil, fmt.Errorf("egress: %w", err)
	}
	return append(in, out...), nil
}

func anyList(v any) []any {
	l, _ := v.([]any)
	return l
}

func firewallObject(f *hcloud.Firewall) provider.Object {
	props := map[string]any{}
	if n := f.Labels[labelNetwork]; n != "" {
		props["network"] = n
	}
	ingress, egress := fromRules(f.Rules)
	if ingress != nil {
		props["ingress"] = ingress
	}
	if egress != nil {
		props["egress"] = egress
	}
	return provider.NewObject(strconv.FormatInt(f.ID, 10), f.Name, property.SetTags(props, f.Labels, isKykuLabel), nil)
}

func (p *Provider) firewalls() api[hcloud.Firewall] {
	return api[hcloud.Firewall]{
		p: p, what: "firewall", get: p.c.Firewall.GetByID,
		list: func(ctx context.Context, name, selector string) ([]*hcloud.Firewall, *hcloud.Response, error) {
			return p.c.Firewall.List(ctx, hcloud.FirewallListOpts{Name: name, ListOpts: hcloud.ListOpts{LabelSelector: selector}})
		},
		labels: func(f *hcloud.Firewall) map[string]string { return f.Labels },
		relabel: func(ctx context.Context, f *hcloud.Firewall, labels map[string]string) (*hcloud.Firewall, *hcloud.Response, error) {
			return p.c.Firewall.Update(ctx, f, hcloud.FirewallUpdateOpts{Labels: labels})
		},
		rename: func(ctx context.Context, f *hcloud.Firewall, name string, labels map[string]string) (*hcloud.Firewall, *hcloud.Response, error) {
			return p.c.Firewall.Update(ctx, f, hcloud.FirewallUpdateOpts{Name: name, Labels: labels})
		},
		del: func(ctx context.Context, f *hcloud.Firewall) (*hcloud.Action, *hcloud.Response, error) {
			r, err := p.c.Firewall.Delete(ctx, f)
			return nil, r, err
		},
		busy:   p.firewallBusy,
		object: func(_ context.Context, f *hcloud.Firewall) (provider.Object, error) { return firewallObject(f), nil },
	}
}

func firewallLabels(r provider.Resource, network int64) map[string]string {
	return wantLabels(r, map[string]string{labelNetwork: strconv.FormatInt(network, 10)})
}

// firewallSpec reads what a SecurityGroup asks of its firewall: its
// network's ID and its rules.
func firewallSpec(r provider.Resource) (int64, []hcloud.FirewallRule, error) {
	nid, err := refID(r, "network")
	if err != nil {
		return 0, nil, err
	}
	rules, err := wantRules(r)
	return nid, rules, err
}

func (k firewallKind) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	nid, rules, err := firewallSpec(r)
	if err != nil {
		return provider.Object{}, err
	}
	f, err := k.p.firewalls().ensure(ctx, r.CloudName, func(ctx context.Context) (*hcloud.Firewall, []*hcloud.Action, *hcloud.Response, error) {
		res, resp, err := k.p.c.Firewall.Create(ctx, hcloud.FirewallCreateOpts{Name: r.CloudName, Labels: firewallLabels(r, nid), Rules: rules})
		return res.Firewall, res.Actions, resp, err
	})
	if err != nil {
		return provider.Object{}, err
	}
	return k.Read(ctx, strconv.FormatInt(f.ID, 10))
}

func (k firewallKind) Read(ctx context.Context, id string) (provider.Object, error) {
	return k.p.firewalls().read(ctx, id)
}

func (k firewallKind) Update(ctx context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error) {
	nid, rules, err := firewallSpec(r)
	if err != nil {
		return provider.Object{}, err
	}
	firewalls := k.p.firewalls()
	f, err := firewalls.byProviderID(ctx, id)
	if err != nil {
		return provider.Object{}, err
	}
	if f, err = firewalls.label(ctx, f, firewallLabels(r, nid)); err != nil {
		return provider.Object{}, err
	}
	in, eg := fromRules(rules)
	if !value.Equal(value.Normalize(in), value.Normalize(anyOrNil(cur.Properties["ingress"]))) ||
		!value.Equal(value.Normalize(eg), value.Normalize(anyOrNil(cur.Properties["egress"]))) {
		err := k.p.act(ctx, "set firewall rules", func(ctx context.Context) ([]*hcloud.Action, *hcloud.Response, error) {
			return k.p.c.Firewall.SetRules(ctx, f, hcloud.FirewallSetRulesOpts{Rules: rules})
		})
		if err != nil {
			return provider.Object{}, err
		}
	}
	return k.Read(ctx, id)
}

func anyOrNil(v any) any {
	if l, ok := v.([]any); ok && len(l) == 0 {
		return nil
	}
	return v
}

func (k firewallKind) Delete(ctx context.Context, id string) error {
	return k.p.firewalls().remove(ctx, id)
}

func (k firewallKind) Lookup(ctx context.Context, name string) (provider.Object, error) {
	return k.p.firewalls().lookup(ctx, name)
}

// firewallBusy judges a delete of f answered resource_in_use: the
// firewall still lists servers deleted a moment ago (the API lags;
// terraform-provider-hcloud retries this delete too) — retry; or a
// server that exists still has it, or a label selector applies it —
// fail now, naming it (Kyku's plan removes a firewall from the servers
// that stay before deleting it).
func (p *Provider) firewallBusy(ctx context.Context, f *hcloud.Firewall, err error) (bool, error) {
	if !isCode(err, hcloud.ErrorCodeResourceInUse) {
		return false, nil
	}
	cur, rerr := p.firewalls().byID(ctx, f.ID)
	if rerr != nil {
		return false, nil
	}
	for _, res := range cur.AppliedTo {
		switch {
		case res.Type == hcloud.FirewallResourceTypeServer && res.Server != nil:
			s, serr := p.servers().byID(ctx, res.Server.ID)
			if serr == nil && s.Status != hcloud.ServerStatusDeleting {
				return false, fmt.Errorf("firewall %q is still applied to server %q (%d): remove it from that server first: %w", f.Name, s.Name, s.ID, err)
			}
		case res.Type == hcloud.FirewallResourceTypeLabelSelector && res.LabelSelector != nil:
			return false, fmt.Errorf("firewall %q is applied to the servers of label selector %q (set outside Kyku): remove that first: %w", f.Name, res.LabelSelector.Selector, err)
		}
	}
	return true, nil
}
