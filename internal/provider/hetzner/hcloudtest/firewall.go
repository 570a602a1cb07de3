package hcloudtest

import (
	"net/http"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
)

// Firewall is a fake firewall; AppliedTo holds server IDs.
type Firewall struct {
	ID        int64
	Name      string
	Labels    map[string]string
	Rules     []Rule
	AppliedTo []int64
	Created   string
}

// Rule is one firewall rule as the API documents it.
type Rule struct {
	Direction      string   `json:"direction"`
	SourceIPs      []string `json:"source_ips"`
	DestinationIPs []string `json:"destination_ips"`
	Protocol       string   `json:"protocol"`
	Port           *string  `json:"port"`
	Description    *string  `json:"description"`
}

type resourceRef struct {
	Type   string `json:"type"`
	Server *struct {
		ID int64 `json:"id"`
	} `json:"server"`
	LabelSelector *struct {
		Selector string `json:"selector"`
	} `json:"label_selector"`
}

var portRE = regexp.MustCompile(`^(any|\d{1,5}(-\d{1,5})?)$`)

// Limits of firewalls: "Assign up to 5 active Firewalls per server"
// (Hetzner Docs, Cloud Firewalls FAQ); a firewall's rules are limited to 50
// entries (Hetzner Cloud API reference, Firewalls: Create a Firewall).
const (
	MaxFirewallsPerServer = 5
	MaxFirewallRules      = 50
)

// checkRules validates rules as the API does.
func checkRules(rules []Rule) *apiError {
	if len(rules) > MaxFirewallRules {
		return invalid("rules", "at most %d rules per firewall, got %d", MaxFirewallRules, len(rules))
	}
	for i, r := range rules {
		field := "rules[" + strconv.Itoa(i) + "]"
		if r.Direction != "in" && r.Direction != "out" {
			return invalid(field+".direction", "must be in or out")
		}
		switch r.Protocol {
		case "tcp", "udp":
			if r.Port == nil || !portRE.MatchString(*r.Port) {
				return invalid(field+".port", "a port or port range is required for %s", r.Protocol)
			}
		case "icmp", "esp", "gre":
			if r.Port != nil {
				return invalid(field+".port", "must not be set for %s", r.Protocol)
			}
		default:
			return invalid(field+".protocol", "must be tcp, udp, icmp, esp or gre")
		}
		ips := r.SourceIPs
		if r.Direction == "out" {
			ips = r.DestinationIPs
		}
		if len(ips) == 0 {
			return invalid(field, "%s rules need %s", r.Direction, map[string]string{"in": "source_ips", "out": "destination_ips"}[r.Direction])
		}
		for _, ip := range append(append([]string{}, r.SourceIPs...), r.DestinationIPs...) {
			if p, err := netip.ParsePrefix(ip); err != nil || p != p.Masked() {
				return invalid(field, "%q is not a network in CIDR notation", ip)
			}
		}
		if r.Description != nil && len(*r.Description) > 255 {
			return invalid(field+".description", "at most 255 characters")
		}
	}
	return nil
}

func (c *Cloud) wireFirewall(f *Firewall) any {
	applied := make([]any, 0, len(f.AppliedTo))
	for _, id := range f.AppliedTo {
		applied = append(applied, map[string]any{"type": "server", "server": map[string]any{"id": id}})
	}
	rules := f.Rules
	if rules == nil {
		rules = []Rule{}
	}
	return map[string]any{"id": f.ID, "name": f.Name, "labels": f.Labels, "created": c.created(f.Created), "rules": rules, "applied_to": applied}
}

func (c *Cloud) firewallKind() *kind[Firewall] {
	return &kind[Firewall]{
		c: c, what: "firewall", plural: "firewalls", taken: "firewall name is already used",
		all:    func() map[int64]*Firewall { return c.st.Firewalls },
		id:     func(f *Firewall) int64 { return f.ID },
		name:   func(f *Firewall) *string { return &f.Name },
		labels: func(f *Firewall) *map[string]string { return &f.Labels },
		wire:   c.wireFirewall,
		remove: func(f *Firewall) (int, any, *apiError) {
			if len(f.AppliedTo) > 0 {
				return 0, nil, fail("resource_in_use", "firewall %d is still applied to %d resources", f.ID, len(f.AppliedTo))
			}
			if id, ok := c.busy[ref{f.ID, "firewall"}.key()]; ok {
				return 0, nil, fail("locked", "firewall %d is locked by action %d", f.ID, id)
			}
			delete(c.st.Firewalls, f.ID)
			return 204, nil, nil
		},
	}
}

// serverOf is the server a resource reference names; field names the
// list it came in.
func serverOf(rr resourceRef, field string) (int64, *apiError) {
	if rr.Type != "server" || rr.Server == nil {
		return 0, invalid(field, "only servers are supported by this fake")
	}
	return rr.Server.ID, nil
}

// applyFirewall starts one apply_firewall action per server in refs.
func (c *Cloud) applyFirewall(f *Firewall, refs []resourceRef) ([]any, *apiError) {
	var out []any
	for _, rr := range refs {
		sid, e := serverOf(rr, "apply_to")
		if e != nil {
			return nil, e
		}
		if c.st.Servers[sid] == nil {
			return nil, fail("firewall_resource_not_found", "server %d not found", sid)
		}
		if slices.Contains(f.AppliedTo, sid) {
			return nil, fail("firewall_already_applied", "firewall %d is already applied to server %d", f.ID, sid)
		}
		if n := c.firewallsOf(sid); n >= MaxFirewallsPerServer {
			return nil, fail("resource_limit_exceeded", "server %d already has %d firewalls (at most %d)", sid, n, MaxFirewallsPerServer)
		}
		a, e := c.start("apply_firewall", func() *apiError {
			if c.st.Servers[sid] != nil && !slices.Contains(f.AppliedTo, sid) {
				f.AppliedTo = append(f.AppliedTo, sid)
			}
			return nil
		}, ref{sid, "server"})
		if e != nil {
			return nil, e
		}
		out = append(out, a.wire())
	}
	return out, nil
}

// firewallsOf counts the firewalls applied to server sid.
func (c *Cloud) firewallsOf(sid int64) int {
	n := 0
	for _, f := range c.st.Firewalls {
		if slices.Contains(f.AppliedTo, sid) {
			n++
		}
	}
	return n
}

func (c *Cloud) firewallRoutes() {
	k := c.firewalls
	k.routes()
	c.handle("POST /firewalls", func(r *http.Request, body []byte) (int, any, *apiError) {
		var in struct {
			Name    string            `json:"name"`
			Labels  map[string]string `json:"labels"`
			Rules   []Rule            `json:"rules"`
			ApplyTo []resourceRef     `json:"apply_to"`
		}
		if e := decode(body, &in); e != nil {
			return 0, nil, e
		}
		if in.Name == "" {
			return 0, nil, invalid("name", "is required")
		}
		if e := checkLabels(in.Labels); e != nil {
			return 0, nil, e
		}
		if e := checkRules(in.Rules); e != nil {
			return 0, nil, e
		}
		if e := k.unique(in.Name, 0); e != nil {
			return 0, nil, e
		}
		f := &Firewall{ID: c.id(), Name: in.Name, Labels: copyLabels(in.Labels), Rules: in.Rules, Created: c.timestamp()}
		actions, e := c.applyFirewall(f, in.ApplyTo)
		if e != nil {
			return 0, nil, e
		}
		c.st.Firewalls[f.ID] = f
		if actions == nil {
			actions = []any{}
		}
		return 201, map[string]any{"firewall": c.wireFirewall(f), "actions": actions}, nil
	})
	// Firewall actions answer {"actions": […]}: one per resource touched.
	actions := func(fn func(f *Firewall, body []byte) ([]any, *apiError)) handlerFunc {
		return func(r *http.Request, body []byte) (int, any, *apiError) {
			f, e := k.byPath(r)
			if e != nil {
				return 0, nil, e
			}
			out, e := fn(f, body)
			if e != nil {
				return 0, nil, e
			}
			return 201, map[string]any{"actions": out}, nil
		}
	}
	c.handle("POST /firewalls/{id}/actions/set_rules", actions(func(f *Firewall, body []byte) ([]any, *apiError) {
		var in struct {
			Rules []Rule `json:"rules"`
		}
		if e := decode(body, &in); e != nil {
			return nil, e
		}
		if e := checkRules(in.Rules); e != nil {
			return nil, e
		}
		a, e := c.start("set_firewall_rules", func() *apiError { f.Rules = in.Rules; return nil }, ref{f.ID, "firewall"})
		if e != nil {
			return nil, e
		}
		return []any{a.wire()}, nil
	}))
	c.handle("POST /firewalls/{id}/actions/apply_to_resources", actions(func(f *Firewall, body []byte) ([]any, *apiError) {
		var in struct {
			ApplyTo []resourceRef `json:"apply_to"`
		}
		if e := decode(body, &in); e != nil {
			return nil, e
		}
		return c.applyFirewall(f, in.ApplyTo)
	}))
	c.handle("POST /firewalls/{id}/actions/remove_from_resources", actions(func(f *Firewall, body []byte) ([]any, *apiError) {
		var in struct {
			RemoveFrom []resourceRef `json:"remove_from"`
		}
		if e := decode(body, &in); e != nil {
			return nil, e
		}
		out := []any{}
		for _, rr := range in.RemoveFrom {
			sid, e := serverOf(rr, "remove_from")
			if e != nil {
				return nil, e
			}
			a, e := c.start("remove_firewall", func() *apiError {
				f.AppliedTo = slices.DeleteFunc(f.AppliedTo, func(id int64) bool { return id == sid })
				return nil
			}, ref{sid, "server"})
			if e != nil {
				return nil, e
			}
			out = append(out, a.wire())
		}
		return out, nil
	}))
}
