package config

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"net/netip"
	"strings"

	"github.com/kyku/action/internal/value"
)

// MaxAutoSubnetAZs bounds distributeAcrossAzs (no cloud region has more
// zones; it also keeps a hostile config from injecting millions of subnets).
const MaxAutoSubnetAZs = 16

// autoSubnet is one subnet a Vpc's distributeAcrossAzs asks for.
type autoSubnet struct {
	Name   string
	CIDR   string
	Public bool
	Index  int // i in <vpc>-subnet-public-<i>
}

// AutoSubnetNames returns the names of the subnets a Vpc called vpc with
// distributeAcrossAzs n gets: public 0..n-1, then private 0..n-1.
func AutoSubnetNames(vpc string, n int) []string {
	vpc = value.SafeName(vpc) // an instance net[0] names net-0-subnet-public-0
	names := make([]string, 0, 2*n)
	for i := range n {
		names = append(names, fmt.Sprintf("%s-subnet-public-%d", vpc, i))
	}
	for i := range n {
		names = append(names, fmt.Sprintf("%s-subnet-private-%d", vpc, i))
	}
	return names
}

// carve plans the auto-subnets of a Vpc with the given cidr. With
// k = ceil(log2(2n)) the subnets are /max(vpcLen+k, 24) blocks carved in
// order from the VPC's network address: public i takes block i, private i
// takes block n+i. A block smaller than /28 (AWS's minimum) is an error.
func carve(vpc, cidr string, n int) ([]autoSubnet, error) {
	if n == 0 {
		return nil, nil
	}
	if n < 0 || n > MaxAutoSubnetAZs {
		return nil, fmt.Errorf("distributeAcrossAzs must be between 0 and %d, got %d", MaxAutoSubnetAZs, n)
	}
	prefix, err := parseCIDR(cidr)
	if err != nil {
		return nil, err
	}
	if !prefix.Addr().Is4() {
		return nil, fmt.Errorf("auto-subnets need an IPv4 CIDR, got %q", cidr)
	}
	k := bits.Len(uint(2*n - 1)) // ceil(log2(2n))
	newLen := max(prefix.Bits()+k, 24)
	if newLen > 28 {
		return nil, fmt.Errorf("%s is too small for %d subnets (%d public + %d private) of at least /28", cidr, 2*n, n, n)
	}
	base := binary.BigEndian.Uint32(prefix.Masked().Addr().AsSlice())
	block := func(i int) string {
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], base+uint32(i)<<(32-newLen))
		return netip.PrefixFrom(netip.AddrFrom4(b), newLen).String()
	}
	names := AutoSubnetNames(vpc, n)
	out := make([]autoSubnet, 0, 2*n)
	for i := range 2 * n {
		out = append(out, autoSubnet{Name: names[i], CIDR: block(i), Public: i < n, Index: i % n})
	}
	return out, nil
}

// parseCIDR parses an IP prefix such as 10.0.0.0/16.
func parseCIDR(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("invalid CIDR %q (expected e.g. 10.0.0.0/16)", s)
	}
	return p, nil
}

// vpcAutoSubnets reads a Vpc's cidr and distributeAcrossAzs and plans its
// subnets.
func vpcAutoSubnets(r *Resource) ([]autoSubnet, error) {
	n, _ := r.Properties["distributeAcrossAzs"].(float64)
	if n == 0 {
		return nil, nil
	}
	cidr, _ := r.Properties["cidr"].(string)
	if _, computed := r.Properties["cidr"].(value.Expr); computed || strings.Contains(cidr, "${") {
		return nil, fmt.Errorf("cidr must be written out (not a reference) to carve auto-subnets")
	}
	subnets, err := carve(r.Name, cidr, int(n))
	if err != nil && r.SensitiveProp("cidr") {
		return nil, fmt.Errorf("the value (sensitive) is not an IPv4 CIDR with room for %d subnets of at least /28", 2*int(n))
	}
	return subnets, err
}

// NeedsZones reports whether some Vpc of cfg asks for auto-subnets, the
// only use of the provider's zone list.
func NeedsZones(cfg *Config) bool {
	for _, r := range cfg.Resources {
		if n, _ := r.Properties["distributeAcrossAzs"].(float64); r.Type == "Vpc" && n > 0 {
			return true
		}
	}
	return false
}

// InjectAutoSubnets adds the auto-subnets of every Vpc with
// distributeAcrossAzs n > 0 to cfg as ordinary Subnet resources (AutoFrom
// set to the Vpc), spreading them over zones round-robin. The engine calls
// it once the provider has listed its zones. It is idempotent: subnets
// already injected are left alone; a user resource with an auto-subnet's
// name is an error (Parse reports it first).
func InjectAutoSubnets(cfg *Config, zones []string) error {
	vpcs := make([]*Resource, 0)
	for _, r := range cfg.Resources {
		if r.Type == "Vpc" {
			vpcs = append(vpcs, r)
		}
	}
	var errs []error
	for _, vpc := range vpcs {
		subnets, err := vpcAutoSubnets(vpc)
		if err != nil {
			errs = append(errs, fmt.Errorf("auto-subnets of Vpc %q: %w", vpc.Name, err))
			continue
		}
		if len(subnets) > 0 && len(zones) == 0 {
			return fmt.Errorf("auto-subnets of Vpc %q: the provider listed no zones", vpc.Name)
		}
		for _, s := range subnets {
			if existing := cfg.Resource(s.Name); existing != nil {
				if existing.AutoFrom != vpc.Name {
					errs = append(errs, fmt.Errorf("auto-subnets of Vpc %q: resource %q already exists", vpc.Name, s.Name))
				}
				continue
			}
			cfg.Add(&Resource{
				Name: s.Name,
				Type: "Subnet",
				Properties: map[string]any{
					"network": value.RefTemplate(value.Ref{Resource: vpc.Name}),
					"cidr":    s.CIDR,
					"zone":    zones[s.Index%len(zones)],
					"public":  s.Public,
				},
				AutoFrom:  vpc.Name,
				Pos:       vpc.Pos,
				Sensitive: sensitiveCIDR(vpc),
			})
		}
	}
	return errors.Join(errs...)
}

// sensitiveCIDR is the Sensitive of the auto-subnets of vpc: carved from
// a sensitive cidr, their cidr is sensitive too.
func sensitiveCIDR(vpc *Resource) []string {
	if vpc.SensitiveProp("cidr") {
		return []string{"cidr"}
	}
	return nil
}

// autoSubnets validates every Vpc's cidr and distributeAcrossAzs, reports
// user resources that clash with an auto-subnet name, and returns the
// auto-subnet names mapped to their Vpc.
func (p *parser) autoSubnets() map[string]*Resource {
	auto := map[string]*Resource{}
	for _, r := range p.cfg.Resources {
		if r.Type != "Vpc" {
			continue
		}
		owner := fmt.Sprintf("resource %q", r.Name)
		if cidr, ok := r.Properties["cidr"].(string); ok && !strings.Contains(cidr, "${") {
			if _, err := parseCIDR(cidr); err != nil {
				if r.SensitiveProp("cidr") {
					err = errors.New("the value (sensitive) is not a CIDR (expected e.g. 10.0.0.0/16)")
				}
				p.diags.Add(r.PropPos.At("cidr"), "%s: property \"cidr\": %v", owner, err)
				continue
			}
		}
		n, given := r.Properties["distributeAcrossAzs"].(float64)
		if given && r.SensitiveProp("distributeAcrossAzs") {
			// As a sensitive count: the auto-subnets would show it.
			p.diags.Add(r.PropPos.At("distributeAcrossAzs"), "%s: property \"distributeAcrossAzs\" cannot use a sensitive value: the auto-subnets it makes would show it; use a value that is not sensitive", owner)
			continue
		}
		if n < 0 || n > MaxAutoSubnetAZs {
			p.diags.Add(r.PropPos.At("distributeAcrossAzs"), "%s: property \"distributeAcrossAzs\": must be between 0 and %d, got %v", owner, MaxAutoSubnetAZs, n)
			continue
		}
		if _, ok := r.Properties["cidr"]; !ok {
			continue // missing cidr is reported already
		}
		subnets, err := vpcAutoSubnets(r)
		if err != nil {
			p.diags.Add(r.PropPos.At("cidr"), "%s: property \"cidr\": %v", owner, err)
			continue
		}
		for _, s := range subnets {
			auto[s.Name] = r
			if user := p.resources[s.Name]; user != nil {
				p.diags.Add(user.Pos, "resource %q: name taken by an auto-subnet of Vpc %q (distributeAcrossAzs: %d, defined at %s); rename it", s.Name, r.Name, int(n), r.Pos)
			}
		}
	}
	return auto
}
