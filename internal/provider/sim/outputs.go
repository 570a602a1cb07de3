package sim

import (
	"fmt"
	"net/netip"
	"strconv"
)

// outputs computes an object's outputs, deterministic given its ID (and,
// for a Vm, its subnet's CIDR): always id; Vm privateIp and publicIp;
// Database and LoadBalancer endpoint.
func (p *Provider) outputs(rec *record) map[string]any {
	out := map[string]any{"id": rec.ID}
	n, _ := strconv.ParseUint(rec.ID, 10, 64)
	switch rec.Type {
	case "Vm":
		out["privateIp"] = p.privateIP(rec, n)
		out["publicIp"] = publicIP(n)
	case "Database":
		out["endpoint"] = rec.CloudName + ".db.sim.internal:5432"
	case "LoadBalancer":
		out["endpoint"] = rec.CloudName + ".lb.sim.internal"
	}
	return out
}

// privateIP picks an address inside the Vm's subnet (skipping the first
// four, as AWS reserves them), or 10.x.y.z derived from the ID when the
// subnet is unknown or too small.
func (p *Provider) privateIP(rec *record, n uint64) string {
	if id, ok := rec.Properties["subnet"].(string); ok && validID(id) {
		if sub, err := p.store.read("Subnet", id); err == nil {
			if cidr, ok := sub.Properties["cidr"].(string); ok {
				if ip, ok := hostIn(cidr, n); ok {
					return ip
				}
			}
		}
	}
	return fmt.Sprintf("10.%d.%d.%d", n/(253*256)%256, n/253%256, n%253+2)
}

// hostIn returns host number 4 + n mod (usable hosts) of an IPv4 prefix.
func hostIn(cidr string, n uint64) (string, bool) {
	pfx, err := netip.ParsePrefix(cidr)
	if err != nil || !pfx.Addr().Is4() || pfx.Bits() > 28 {
		return "", false
	}
	size := uint64(1) << (32 - pfx.Bits())
	host := 4 + n%(size-5) // skip network + 3 reserved, and broadcast
	a := pfx.Masked().Addr().As4()
	base := uint64(a[0])<<24 | uint64(a[1])<<16 | uint64(a[2])<<8 | uint64(a[3])
	v := base + host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}).String(), true
}

// publicIP derives an address from the documentation ranges (RFC 5737),
// so a simulated address can never reach a real host.
func publicIP(n uint64) string {
	nets := [...]string{"203.0.113", "198.51.100", "192.0.2"}
	return fmt.Sprintf("%s.%d", nets[n/254%3], n%254+1)
}
