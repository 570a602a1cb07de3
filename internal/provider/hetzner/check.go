package hetzner

import (
	"fmt"
	"net"
	"sort"
	"strings"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/property"
	"github.com/kyku/action/internal/value"
)

// maxName keeps "<8-hex deploy prefix>-<name>" within Hetzner's 63
// characters for label values and hostnames.
const maxName = 54

// CheckResource implements provider.ResourceChecker: what Hetzner cannot
// carry is refused at plan time, positioned in the config, instead of
// failing halfway through an apply.
func (p *Provider) CheckResource(name, typ string, props map[string]any) []provider.Refusal {
	var out []provider.Refusal
	refuse := func(prop, format string, args ...any) {
		out = append(out, provider.Refusal{Property: prop, Reason: fmt.Sprintf(format, args...)})
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
	if len(name) > maxName || !labelRE.MatchString(name) {
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
	switch typ {
	case "LoadBalancer":
		if sg, ok := props["securityGroups"]; ok && !emptyList(sg) {
			refuse("securityGroups", "hetzner load balancers take no firewalls; remove securityGroups (the firewalls of the target servers still apply)")
		}
		if _, ok := props["targetGroup"]; !ok {
			refuse("targetGroup", "a load balancer on hetzner needs a targetGroup (its service forwards to the group's port)")
		}
	case "TargetGroup":
		if emptyList(props["targets"]) {
			refuse("targets", "a target group on hetzner needs at least one target (it exists as a label on its servers)")
		}
	case "Vm":
		if size, ok := props["size"].(string); ok && !strings.Contains(size, "${") {
			if _, err := serverType(size); err != nil {
				refuse("size", "%v", err)
			}
		}
	case "SecurityGroup":
		for _, dir := range []string{"ingress", "egress"} {
			for i, raw := range anyList(props[dir]) {
				m, _ := raw.(map[string]any)
				if cidr := property.String(m, "cidr"); cidr != "" && !strings.Contains(cidr, "${") {
					if _, ipn, err := net.ParseCIDR(cidr); err != nil || ipn.String() != cidr {
						refuse(dir, "rule %d: cidr %q is not a network address in CIDR notation (hetzner firewalls take e.g. 10.0.0.0/16)", i, cidr)
					}
				}
				if proto := property.String(m, "protocol"); (proto == "icmp" || proto == "all") && m["port"] != nil {
					refuse(dir, "rule %d: protocol %s takes no port", i, proto)
				}
			}
		}
	}
	return out
}

// checkTags refuses tags that cannot be Hetzner labels or that are Kyku's
// own label keys.
func checkTags(tags map[string]any, refuse func(prop, format string, args ...any)) {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, _ := tags[k].(string)
		switch {
		case isKykuLabel(k):
			refuse("tags", "tag %q: this key is one of Kyku's own labels on hetzner", k)
		case !validLabelKey(k):
			refuse("tags", "tag %q: not a valid hetzner label key (an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_', '.', starting and ending with a letter or digit)", k)
		case !strings.Contains(v, "${") && !labelRE.MatchString(v):
			refuse("tags", "tag %q: value %q is not a valid hetzner label value (at most 63 letters, digits, '-', '_', '.', starting and ending with a letter or digit)", k, v)
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
		if ok && (part == "" || !labelRE.MatchString(part) || strings.ContainsAny(part, "_.") || strings.ToLower(part) != part) {
			return false
		}
	}
	return name != "" && labelRE.MatchString(name)
}

func emptyList(v any) bool {
	l, ok := v.([]any)
	return v == nil || (ok && len(l) == 0)
}
