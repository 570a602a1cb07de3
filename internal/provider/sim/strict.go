package sim

import (
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

// The simulator is a strict cloud: it refuses what a real API refuses,
// and says so at plan time (CheckResources) and again in Create and Update
// (the API), with the same words:
//
//	cidr            IPv4 in CIDR notation, the network address (no host bits);
//	                a Vpc or Subnet is /8 to /28; a subnet lies inside its
//	                network and overlaps no other subnet of it
//	zone            one of the zones the sim offers (sim-a, sim-b, sim-c)
//	port            1 to 65535; icmp and all rules take none
//	protocol        tcp, udp, icmp or all (rules), http, https or tcp (target groups)
//	size            small, medium or large
//	image           one of Images
//	storageGb       1 to 65536
//	version         digits and dots ("16", "8.0.36")
//	a Vm's subnet   in the Vm's network
//	names           a cloud name is at most 63 letters, digits, '-', '_' or
//	                '.'; the Kyku name (an instance web[0] is web-0) at most
//	                54 of them, so the deploy prefix fits

// Images are the images the simulator knows.
var Images = []string{"amazon-linux-2023", "debian-12", "debian-13", "rocky-9", "ubuntu-22.04", "ubuntu-24.04"}

// Sizes are the sizes of the simulator's machines and databases.
var Sizes = []string{"small", "medium", "large"}

const (
	maxCloudName = 63
	maxName      = maxCloudName - 9 // "<8-hex prefix>-"
	minBits      = 8
	maxBits      = 28
	maxStorageGb = 65536
)

var versionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`)
})

// validName reports whether s is letters, digits, '.', '_' and '-',
// starting with a letter or digit (a loop, not a regexp: plans of
// thousands ask it of every resource).
func validName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return s != ""
}

// refusal is one value the simulated API refuses: the path below the
// resource ("cidr", "ingress[1].port") and why.
type refusal struct{ path, reason string }

// literal reports whether v is a value written out (not a reference the
// plan resolves later).
func literal(v any) bool {
	s, ok := v.(string)
	return !ok || !strings.Contains(s, "${")
}

// checkValues checks the values of one resource of typ that the
// simulated API judges on their own (no other object needed).
// Unresolved references are left for later.
func checkValues(typ string, props map[string]any) []refusal {
	var out []refusal
	add := func(path, format string, args ...any) {
		out = append(out, refusal{path, fmt.Sprintf(format, args...)})
	}
	if s, ok := props["cidr"].(string); ok && literal(s) && (typ == "Vpc" || typ == "Subnet") {
		if _, err := network(s); err != nil {
			add("cidr", "%v", err)
		}
	}
	if z, ok := props["zone"].(string); ok && literal(z) && typ == "Subnet" && !slices.Contains(zones, z) {
		add("zone", "the sim offers zones %s, not %q", strings.Join(zones, ", "), z)
	}
	checkPort := func(path string, v any) {
		if f, ok := v.(float64); ok && (f < 1 || f > 65535) {
			add(path, "port %v is not between 1 and 65535", f)
		}
	}
	switch typ {
	case "SecurityGroup":
		for _, dir := range []string{"ingress", "egress"} {
			l, _ := props[dir].([]any)
			for i, raw := range l {
				m, _ := raw.(map[string]any)
				at := dir + "[" + strconv.Itoa(i) + "]"
				proto, _ := m["protocol"].(string)
				switch proto {
				case "tcp", "udp", "":
				case "icmp", "all":
					if m["port"] != nil {
						add(at+".port", "a rule of protocol %s takes no port", proto)
					}
				default:
					add(at+".protocol", "protocol %q is not tcp, udp, icmp or all", proto)
				}
				checkPort(at+".port", m["port"])
				if c, ok := m["cidr"].(string); ok && literal(c) {
					if err := ruleCIDR(c); err != nil {
						add(at+".cidr", "%v", err)
					}
				}
			}
		}
	case "TargetGroup", "LoadBalancer":
		checkPort("port", props["port"])
	case "Vm", "Database":
		if s, ok := props["size"].(string); ok && literal(s) && !slices.Contains(Sizes, s) {
			add("size", "the sim has sizes %s, not %q", strings.Join(Sizes, ", "), s)
		}
	}
	switch typ {
	case "Vm":
		if s, ok := props["image"].(string); ok && literal(s) && !slices.Contains(Images, s) {
			add("image", "the sim knows images %s, not %q", strings.Join(Images, ", "), s)
		}
	case "Database":
		if f, ok := props["storageGb"].(float64); ok && (f < 1 || f > maxStorageGb) {
			add("storageGb", "storage must be 1 to %d GB, not %v", maxStorageGb, f)
		}
		if s, ok := props["version"].(string); ok && literal(s) && !versionRE().MatchString(s) {
			add("version", "version %q is not digits and dots (e.g. 16 or 8.0.36)", s)
		}
	}
	return out
}

// network parses the address range of a Vpc or Subnet.
func network(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	switch {
	case err != nil || !p.Addr().Is4():
		return p, fmt.Errorf("%q is not an IPv4 network in CIDR notation (e.g. 10.0.0.0/16)", s)
	case p != p.Masked():
		return p, fmt.Errorf("%q has host bits set: the network is %s", s, p.Masked())
	case p.Bits() < minBits || p.Bits() > maxBits:
		return p, fmt.Errorf("%q: a sim network is /%d to /%d", s, minBits, maxBits)
	}
	return p, nil
}

// ruleCIDR checks the range of a security group rule (IPv4 or IPv6).
func ruleCIDR(s string) error {
	p, err := netip.ParsePrefix(s)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not an address range in CIDR notation (e.g. 0.0.0.0/0 or 10.0.0.0/16)", s)
	case p != p.Masked():
		return fmt.Errorf("%q has host bits set: the range is %s", s, p.Masked())
	}
	return nil
}

// checkName is the sim's rule for the Kyku name of a resource.
func checkName(name string) string {
	safe := value.SafeName(name)
	switch {
	case len(safe) > maxName:
		return fmt.Sprintf("a sim name is at most %d characters (the cloud name adds the deploy prefix), %q has %d", maxName, safe, len(safe))
	case !validName(safe):
		return fmt.Sprintf("a sim name is letters, digits, '-', '_' and '.', starting with a letter or digit, not %q", safe)
	}
	return ""
}

// CheckName implements provider.NameChecker: the cloud name a new object
// gets.
func (p *Provider) CheckName(_, cloudName string) error {
	if len(cloudName) > maxCloudName || !validName(cloudName) {
		return fmt.Errorf("a sim cloud name is at most %d letters, digits, '-', '_' or '.', starting with a letter or digit", maxCloudName)
	}
	return nil
}

// CheckResources implements provider.ResourceChecker: every value the
// simulated API would refuse, at plan time, including what spans
// resources of the configuration (a subnet inside its network's range,
// overlapping no other, a Vm's subnet in its network).
func (p *Provider) CheckResources(rs []provider.Desired) []provider.Refusal {
	var out []provider.Refusal
	var byName map[string]provider.Desired // built when a check spans resources
	refOf := func(v any) (provider.Desired, bool) {
		ref, ok := value.WholeRef(v)
		if !ok || ref.Attr != "" {
			return provider.Desired{}, false
		}
		if byName == nil {
			byName = make(map[string]provider.Desired, len(rs))
			for _, r := range rs {
				byName[r.Name] = r
			}
		}
		d, ok := byName[ref.Resource]
		return d, ok
	}
	subnets := map[string][]provider.Desired{} // network's name → its subnets
	for _, r := range rs {
		if reason := checkName(r.Name); reason != "" {
			out = append(out, provider.Refusal{Resource: r.Name, Reason: reason})
		}
		for _, f := range checkValues(r.Type, r.Properties) {
			out = append(out, provider.Refusal{Resource: r.Name, Path: f.path, Reason: f.reason})
		}
		switch r.Type {
		case "Subnet":
			vpc, ok := refOf(r.Properties["network"])
			if !ok {
				continue
			}
			if reason := inNetwork(r.Properties["cidr"], vpc.Properties["cidr"]); reason != "" {
				out = append(out, provider.Refusal{Resource: r.Name, Path: "cidr", Reason: reason + " (of Vpc " + value.QuoteName(vpc.Name) + ")"})
				continue
			}
			subnets[vpc.Name] = append(subnets[vpc.Name], r)
		case "Vm":
			sub, ok := refOf(r.Properties["subnet"])
			vmNet, subNet := refName(r.Properties["network"]), refName(sub.Properties["network"])
			if ok && vmNet != "" && subNet != "" && vmNet != subNet {
				out = append(out, provider.Refusal{Resource: r.Name, Path: "subnet", Reason: fmt.Sprintf("subnet %s is in network %s, not in the Vm's network %s", value.QuoteName(sub.Name), value.QuoteName(subNet), value.QuoteName(vmNet))})
			}
		}
	}
	for _, list := range subnets {
		sort.Slice(list, func(i, j int) bool { return value.CompareNames(list[i].Name, list[j].Name) < 0 })
		for i, a := range list {
			for _, b := range list[:i] {
				if reason := overlap(a.Properties["cidr"], b.Properties["cidr"]); reason != "" {
					out = append(out, provider.Refusal{Resource: a.Name, Path: "cidr", Reason: reason + " of subnet " + value.QuoteName(b.Name)})
					break
				}
			}
		}
	}
	return out
}

// refName is the resource a whole-value reference ("${vpc}") names, or "".
func refName(v any) string {
	if ref, ok := value.WholeRef(v); ok && ref.Attr == "" {
		return ref.Resource
	}
	return ""
}

// inNetwork says why subnet range sub (a literal) does not lie inside
// network range vpc, or "".
func inNetwork(sub, vpc any) string {
	s, ok1 := sub.(string)
	v, ok2 := vpc.(string)
	if !ok1 || !ok2 || !literal(s) || !literal(v) {
		return ""
	}
	sp, err1 := network(s)
	vp, err2 := network(v)
	if err1 != nil || err2 != nil {
		return "" // reported as such
	}
	if sp.Bits() < vp.Bits() || !vp.Contains(sp.Addr()) {
		return fmt.Sprintf("%s is not inside the network's range %s", s, v)
	}
	return ""
}

// overlap says how subnet ranges a and b overlap, or "".
func overlap(a, b any) string {
	as, ok1 := a.(string)
	bs, ok2 := b.(string)
	if !ok1 || !ok2 || !literal(as) || !literal(bs) {
		return ""
	}
	ap, err1 := network(as)
	bp, err2 := network(bs)
	if err1 != nil || err2 != nil || !ap.Overlaps(bp) {
		return ""
	}
	return fmt.Sprintf("%s overlaps %s", as, bs)
}
