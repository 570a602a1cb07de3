package hetzner

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/property"
	"github.com/kyku/action/internal/value"
)

// maxName keeps "<8-hex deploy prefix>-<name>" within Hetzner's 63
// characters for label values and hostnames.
const maxName = 54

// Limits of the Hetzner Cloud API, checked at plan time.
const (
	// maxFirewallsPerServer: "Assign up to 5 active Firewalls per server"
	// (Hetzner Docs, Cloud Firewalls FAQ, limitations).
	maxFirewallsPerServer = 5
	// maxFirewallRules: a firewall's rules are limited to 50 entries
	// (Hetzner Cloud API reference, Firewalls: Create a Firewall, rules).
	maxFirewallRules = 50
	// minNetworkBits: "Minimum network size is /24" (Hetzner Cloud API
	// reference, Networks: Create a Network, ip_range); a subnet is /30
	// at the smallest (Networks: Add a subnet, ip_range).
	minNetworkBits = 24
	minSubnetBits  = 30
)

// networkZones are the network zones of Hetzner's locations (Hetzner
// Cloud API reference, Locations: network_zone).
var networkZones = []string{"eu-central", "us-east", "us-west", "ap-southeast"}

// zoneOf is the network zone of each location (Hetzner Cloud API
// reference, Locations: network_zone): a server or load balancer attaches
// only to a subnet of its location's zone.
var zoneOf = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"fsn1": "eu-central", "nbg1": "eu-central", "hel1": "eu-central",
		"ash": "us-east", "hil": "us-west", "sin": "ap-southeast",
	}
})

// CheckResources: what Hetzner cannot
// carry, its documented limits and its name rules are refused at plan
// time, positioned in the config, instead of failing halfway through an
// apply.
func (p *Provider) CheckResources(rs []provider.Desired) []provider.Refusal {
	var out []provider.Refusal
	for _, r := range rs {
		for _, ref := range p.checkResource(r.Name, r.Type, r.Properties) {
			ref.Resource = r.Name
			out = append(out, ref)
		}
	}
	return append(out, p.checkZones(rs)...)
}

// checkZones refuses attachments the API would refuse for the network
// zone: a Vm in a subnet of another zone than its location's, and a Vm or
// load balancer attached to a network with no subnet in that zone (the
// API answers no_subnet_available: Hetzner Cloud API reference, Servers:
// Attach a Server to a Network).
func (p *Provider) checkZones(rs []provider.Desired) []provider.Refusal {
	zone, ok := zoneOf()[p.opts.Location]
	if !ok {
		return nil // an unknown location fails on its own
	}
	subnets := map[string]provider.Desired{}
	inZone := map[string]bool{} // network → has a subnet in the location's zone
	for _, r := range rs {
		if r.Type == "Vpc" {
			// Auto-subnets (distributeAcrossAzs) go to the location's zone.
			if n, ok := r.Properties["distributeAcrossAzs"].(float64); !ok || n > 0 {
				inZone[r.Name] = true
			}
		}
		if r.Type != "Subnet" {
			continue
		}
		subnets[r.Name] = r
		z, known := literalString(r.Properties["zone"])
		if net := refName(r.Properties["network"]); net != "" && (!known || z == zone) {
			inZone[net] = true
		}
	}
	var out []provider.Refusal
	for _, r := range rs {
		if r.Type != "Vm" && r.Type != "LoadBalancer" {
			continue
		}
		if s, set := r.Properties["subnet"]; set && r.Type == "Vm" {
			sn, ok := subnets[refName(s)]
			if z, known := literalString(sn.Properties["zone"]); ok && known && z != zone {
				out = append(out, provider.Refusal{Resource: r.Name, Path: "subnet", Reason: fmt.Sprintf("subnet %s is in network zone %s, and a server in %s attaches only to a subnet of %s", sn.Name, z, p.opts.Location, zone)})
			}
			continue
		}
		if net := refName(r.Properties["network"]); net != "" && !inZone[net] && declared(rs, net) {
			out = append(out, provider.Refusal{Resource: r.Name, Path: "network", Reason: fmt.Sprintf("network %s has no subnet in %s's network zone %s, which the %s attaches to: add one (a Subnet with zone %s, or distributeAcrossAzs on the network)", net, p.opts.Location, zone, map[string]string{"Vm": "server", "LoadBalancer": "load balancer"}[r.Type], zone)})
		}
	}
	return out
}

// refName is the resource a property refers to whole ("${net}" or
// "${net.id}"), or "".
func refName(v any) string {
	r, ok := value.WholeRef(v)
	if !ok || r.Path != "" || (r.Attr != "" && r.Attr != "id") {
		return ""
	}
	return r.Resource
}

// declared reports whether rs holds a Vpc named name (a network Kyku
// manages, whose subnets it knows).
func declared(rs []provider.Desired, name string) bool {
	for _, r := range rs {
		if r.Name == name && r.Type == "Vpc" {
			return true
		}
	}
	return false
}

func (p *Provider) checkResource(name, typ string, props map[string]any) []provider.Refusal {
	var out []provider.Refusal
	refuse := func(path, format string, args ...any) {
		out = append(out, provider.Refusal{Path: path, Reason: fmt.Sprintf(format, args...)})
	}
	if typ == "Database" {
		refuse("", "hetzner has no managed databases; run the database on a Vm, or put it under another provider")
		return out
	}
	if _, err := p.kinds.Kind(typ); err != nil {
		refuse("", "the hetzner provider has no resource type %s", typ)
		return out
	}
	name = value.SafeName(name) // an instance web[0] is labelled and named web-0
	if len(name) > maxName || !labelRE().MatchString(name) {
		refuse("", "on hetzner a name must be at most %d letters, digits, '-' or '_', starting and ending with a letter or digit (it becomes a label and a cloud name)", maxName)
	} else if typ == "Vm" && strings.Contains(name, "_") {
		refuse("", "on hetzner a Vm name becomes the server's hostname and cannot contain '_'")
	}
	if tags, ok := props["tags"].(map[string]any); ok && len(tags) > 0 {
		switch typ {
		case "Subnet":
			refuse("tags", "hetzner subnets carry no labels, so they cannot be tagged")
		case "TargetGroup":
			refuse("tags", "a target group on hetzner is a label on its servers and carries no tags")
		default:
			checkTags(tags, refuse)
		}
	}
	checkPort := func(path string, v any) {
		if f, ok := v.(float64); ok && (f < 1 || f > 65535) {
			refuse(path, "port %v is not between 1 and 65535", f)
		}
	}
	switch typ {
	case "Vpc":
		if cidr, ok := literalString(props["cidr"]); ok {
			if reason := checkRange(cidr, 8, minNetworkBits, "a hetzner network"); reason != "" {
				refuse("cidr", "%s", reason)
			}
		}
	case "Subnet":
		if cidr, ok := literalString(props["cidr"]); ok {
			if reason := checkRange(cidr, 8, minSubnetBits, "a hetzner subnet"); reason != "" {
				refuse("cidr", "%s", reason)
			}
		}
		if z, ok := literalString(props["zone"]); ok && !slices.Contains(networkZones, z) {
			refuse("zone", "%q is not a hetzner network zone (%s; the location's is the one its servers attach in)", z, strings.Join(networkZones, ", "))
		}
	case "LoadBalancer":
		if sg, ok := props["securityGroups"]; ok && !emptyList(sg) {
			refuse("securityGroups", "hetzner load balancers take no firewalls; remove securityGroups (the firewalls of the target servers still apply)")
		}
		if _, ok := props["targetGroup"]; !ok {
			refuse("targetGroup", "a load balancer on hetzner needs a targetGroup (its service forwards to the group's port)")
		}
		if c, ok := props["certificateArn"].(string); ok && c != "" {
			refuse("certificateArn", "the hetzner provider does not terminate TLS yet (certificates are not supported); remove certificateArn")
		}
		checkPort("port", props["port"])
	case "TargetGroup":
		if emptyList(props["targets"]) {
			refuse("targets", "a target group on hetzner needs at least one target (it exists as a label on its servers)")
		}
		checkPort("port", props["port"])
	case "Vm":
		if size, ok := literalString(props["size"]); ok {
			if _, err := serverTypes(size); err != nil {
				refuse("size", "%v", err)
			}
		}
		if l, ok := props["securityGroups"].([]any); ok && len(l) > maxFirewallsPerServer {
			refuse("securityGroups", "a hetzner server takes at most %d firewalls, not %d", maxFirewallsPerServer, len(l))
		}
	case "SecurityGroup":
		rules := 0
		for _, dir := range []string{"ingress", "egress"} {
			for i, raw := range anyList(props[dir]) {
				m, _ := raw.(map[string]any)
				at := fmt.Sprintf("%s[%d]", dir, i)
				if cidr, ok := literalString(m["cidr"]); ok && cidr != "" {
					if _, ipn, err := net.ParseCIDR(cidr); err != nil || ipn.String() != cidr {
						refuse(at+".cidr", "%q is not a network address in CIDR notation (hetzner firewalls take e.g. 203.0.113.0/24)", cidr)
					} else if pfx, err := netip.ParsePrefix(cidr); err == nil && pfx.Addr().Is4() && private(pfx) {
						refuse(at+".cidr", "%s is a private range, and hetzner firewalls filter only a server's public interface: traffic over a private network never passes them (it is not filtered), so this rule can never match; remove it, or name public addresses", cidr)
					}
				}
				proto := property.StringOr(m, "protocol", "tcp")
				if (proto == "icmp" || proto == "all") && m["port"] != nil {
					refuse(at+".port", "protocol %s takes no port", proto)
				}
				checkPort(at+".port", m["port"])
				rules += hetznerRules(proto)
			}
		}
		if rules > maxFirewallRules {
			refuse("", "a hetzner firewall holds at most %d rules; these make %d (a rule of protocol all is three: tcp, udp and icmp)", maxFirewallRules, rules)
		}
	}
	return out
}

// hetznerRules is how many firewall rules a Kyku rule of proto becomes.
func hetznerRules(proto string) int {
	if proto == "all" {
		return 3
	}
	return 1
}

// checkRange says why cidr cannot be the range of what (a private IPv4
// network of /minBits to /maxBits), or "".
func checkRange(cidr string, minBits, maxBits int, what string) string {
	pfx, err := netip.ParsePrefix(cidr)
	switch {
	case err != nil || !pfx.Addr().Is4():
		return fmt.Sprintf("%q is not an IPv4 network in CIDR notation (e.g. 10.0.0.0/16)", cidr)
	case pfx != pfx.Masked():
		return fmt.Sprintf("%q has host bits set: the network is %s", cidr, pfx.Masked())
	case !private(pfx):
		return fmt.Sprintf("%s must be in a private range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16), not %s", what, cidr)
	case pfx.Bits() > maxBits:
		return fmt.Sprintf("%s is /%d at the smallest, not /%d", what, maxBits, pfx.Bits())
	case pfx.Bits() < minBits:
		return fmt.Sprintf("%s is /%d at the largest, not /%d", what, minBits, pfx.Bits())
	}
	return ""
}

// private reports whether p lies in RFC 1918 space, as the API requires
// of networks.
func private(p netip.Prefix) bool {
	for _, s := range []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"} {
		r := netip.MustParsePrefix(s)
		if r.Bits() <= p.Bits() && r.Contains(p.Addr()) {
			return true
		}
	}
	return false
}

// literalString is v as a string written out in the config (not holding
// a reference resolved later).
func literalString(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok && !strings.Contains(s, "${")
}

// checkTags refuses tags that cannot be Hetzner labels or that are Kyku's
// own label keys.
func checkTags(tags map[string]any, refuse func(path, format string, args ...any)) {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, text := tags[k].(string) // not text: a template, known when applying
		switch {
		case isKykuLabel(k):
			refuse("tags."+k, "tag %q: this key is one of Kyku's own labels on hetzner", k)
		case !validLabelKey(k):
			refuse("tags."+k, "tag %q: not a valid hetzner label key (an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_', '.', starting and ending with a letter or digit)", k)
		case text && !strings.Contains(v, "${") && !labelRE().MatchString(v):
			refuse("tags."+k, "tag %q: value %q is not a valid hetzner label value (at most 63 letters, digits, '-', '_', '.', starting and ending with a letter or digit)", k, v)
		}
	}
}

func validLabelKey(k string) bool {
	prefix, name, ok := strings.Cut(k, "/")
	if !ok {
		name, prefix = prefix, ""
	}
	if ok && (prefix == "" || len(prefix) > 253 || prefix == "hetzner.cloud") {
		return false
	}
	for _, part := range strings.Split(prefix, ".") {
		if ok && (part == "" || !labelRE().MatchString(part) || strings.ContainsAny(part, "_.") || strings.ToLower(part) != part) {
			return false
		}
	}
	return name != "" && labelRE().MatchString(name)
}

func emptyList(v any) bool {
	l, ok := v.([]any)
	return v == nil || (ok && len(l) == 0)
}
