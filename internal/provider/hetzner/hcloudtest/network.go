package hcloudtest

import (
	"net/http"
	"net/netip"
	"slices"
	"sort"
	"time"
)

// Network is a fake network with its subnets.
type Network struct {
	ID      int64
	Name    string
	IPRange string
	Subnets []Subnet
	Labels  map[string]string
	Created string
}

// Subnet is one subnet of a network.
type Subnet struct {
	Type, IPRange, NetworkZone, Gateway string
	ready                               time.Time // attachable from then on (SubnetLag)
}

// Location is one Hetzner location.
type Location struct {
	ID                int64
	Name, NetworkZone string
}

// Locations are the locations the fake knows, as the real API lists them.
var Locations = []Location{
	{1, "fsn1", "eu-central"}, {2, "nbg1", "eu-central"}, {3, "hel1", "eu-central"},
	{4, "ash", "us-east"}, {5, "hil", "us-west"}, {6, "sin", "ap-southeast"},
}

func zoneExists(z string) bool {
	for _, l := range Locations {
		if l.NetworkZone == z {
			return true
		}
	}
	return false
}

func locationByName(name string) (Location, bool) {
	for _, l := range Locations {
		if l.Name == name {
			return l, true
		}
	}
	return Location{}, false
}

func (l Location) wire() map[string]any {
	return map[string]any{
		"id": l.ID, "name": l.Name, "description": l.Name, "country": "DE", "city": l.Name,
		"latitude": 50.0, "longitude": 12.0, "network_zone": l.NetworkZone,
	}
}

func (c *Cloud) wireNetwork(n *Network) any {
	subnets := make([]any, 0, len(n.Subnets))
	for _, s := range n.Subnets {
		subnets = append(subnets, map[string]any{"type": s.Type, "ip_range": s.IPRange, "network_zone": s.NetworkZone, "gateway": s.Gateway})
	}
	servers, lbs := []int64{}, []int64{}
	for _, s := range c.st.Servers {
		for _, pn := range s.PrivateNet {
			if pn.Network == n.ID {
				servers = append(servers, s.ID)
			}
		}
	}
	for _, lb := range c.st.LoadBalancers {
		if lb.Network == n.ID {
			lbs = append(lbs, lb.ID)
		}
	}
	sort.Slice(servers, func(i, j int) bool { return servers[i] < servers[j] })
	sort.Slice(lbs, func(i, j int) bool { return lbs[i] < lbs[j] })
	return map[string]any{
		"id": n.ID, "name": n.Name, "ip_range": n.IPRange, "subnets": subnets, "routes": []any{},
		"servers": servers, "load_balancers": lbs, "protection": map[string]any{"delete": false},
		"labels": n.Labels, "created": c.created(n.Created), "expose_routes_to_vswitch": false,
	}
}

// privateRange reports whether p lies in RFC 1918 space, as the API requires.
func privateRange(p netip.Prefix) bool {
	for _, s := range []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"} {
		r := netip.MustParsePrefix(s)
		if r.Bits() <= p.Bits() && r.Contains(p.Addr()) {
			return true
		}
	}
	return false
}

func (c *Cloud) networkKind() *kind[Network] {
	return &kind[Network]{
		c: c, what: "network", plural: "networks", taken: "network name is already used",
		all:    func() map[int64]*Network { return c.st.Networks },
		id:     func(n *Network) int64 { return n.ID },
		name:   func(n *Network) *string { return &n.Name },
		labels: func(n *Network) *map[string]string { return &n.Labels },
		wire:   c.wireNetwork,
		remove: func(n *Network) (int, any, *apiError) {
			if id, ok := c.busy[ref{n.ID, "network"}.key()]; ok {
				return 0, nil, fail("locked", "network %d is locked by action %d", n.ID, id)
			}
			// As documented: attached servers are detached in the background.
			for _, s := range c.st.Servers {
				s.PrivateNet = slices.DeleteFunc(s.PrivateNet, func(pn PrivateNet) bool { return pn.Network == n.ID })
			}
			for _, lb := range c.st.LoadBalancers {
				if lb.Network == n.ID {
					lb.Network, lb.PrivateIP = 0, ""
				}
			}
			delete(c.st.Networks, n.ID)
			c.release(ref{n.ID, "network"})
			return 204, nil, nil
		},
	}
}

func (c *Cloud) networkRoutes() {
	c.handle("GET /locations", func(r *http.Request, _ []byte) (int, any, *apiError) {
		var out []any
		for _, l := range Locations {
			if n := r.URL.Query().Get("name"); n == "" || n == l.Name {
				out = append(out, l.wire())
			}
		}
		if out == nil {
			out = []any{}
		}
		_, meta, _ := page(r, out)
		return 200, map[string]any{"locations": out, "meta": meta}, nil
	})
	k := c.networks
	k.routes()
	c.handle("POST /networks", func(r *http.Request, body []byte) (int, any, *apiError) {
		var in struct {
			Name    string            `json:"name"`
			IPRange string            `json:"ip_range"`
			Labels  map[string]string `json:"labels"`
		}
		if e := decode(body, &in); e != nil {
			return 0, nil, e
		}
		if in.Name == "" {
			return 0, nil, invalid("name", "is required")
		}
		p, err := netip.ParsePrefix(in.IPRange)
		if err != nil || p != p.Masked() || !privateRange(p) {
			return 0, nil, invalid("ip_range", "%q is not a private IPv4 network in CIDR notation", in.IPRange)
		}
		// Hetzner Cloud API reference, Networks: Create a Network —
		// "Minimum network size is /24".
		if p.Bits() > 24 {
			return 0, nil, invalid("ip_range", "minimum network size is /24, got /%d", p.Bits())
		}
		if e := checkLabels(in.Labels); e != nil {
			return 0, nil, e
		}
		if e := k.unique(in.Name, 0); e != nil {
			return 0, nil, e
		}
		n := &Network{ID: c.id(), Name: in.Name, IPRange: in.IPRange, Labels: copyLabels(in.Labels), Created: c.timestamp()}
		c.st.Networks[n.ID] = n
		return 201, k.answer(n), nil
	})
	c.handle("POST /networks/{id}/actions/add_subnet", k.action("add_subnet", func(n *Network, body []byte) (func() *apiError, []ref, *apiError) {
		var raw struct {
			Type        string `json:"type"`
			IPRange     string `json:"ip_range"`
			NetworkZone string `json:"network_zone"`
		}
		if e := decode(body, &raw); e != nil {
			return nil, nil, e
		}
		in := Subnet{Type: raw.Type, IPRange: raw.IPRange, NetworkZone: raw.NetworkZone}
		if in.Type != "cloud" && in.Type != "server" {
			return nil, nil, invalid("type", "must be cloud, server or vswitch")
		}
		if !zoneExists(in.NetworkZone) {
			return nil, nil, invalid("network_zone", "unknown network zone %q", in.NetworkZone)
		}
		if e := c.checkSubnet(n, in.IPRange); e != nil {
			return nil, nil, e
		}
		in.Gateway = netip.MustParsePrefix(n.IPRange).Masked().Addr().Next().String()
		return func() *apiError {
			if e := c.checkSubnet(n, in.IPRange); e != nil {
				return e
			}
			in.ready = c.opts.Now().Add(SubnetLag)
			n.Subnets = append(n.Subnets, in)
			return nil
		}, nil, nil
	}))
	c.handle("POST /networks/{id}/actions/delete_subnet", k.action("delete_subnet", func(n *Network, body []byte) (func() *apiError, []ref, *apiError) {
		var in struct {
			IPRange string `json:"ip_range"`
		}
		if e := decode(body, &in); e != nil {
			return nil, nil, e
		}
		if !slices.ContainsFunc(n.Subnets, func(s Subnet) bool { return s.IPRange == in.IPRange }) {
			return nil, nil, invalid("ip_range", "network %d has no subnet %s", n.ID, in.IPRange)
		}
		// Hetzner Cloud API reference, Networks: Delete a subnet — the
		// API refuses a subnet that servers or load balancers are
		// attached in with service_error ("servers are attached"), not
		// resource_in_use (as a real project answers).
		p := netip.MustParsePrefix(in.IPRange)
		for _, s := range c.st.Servers {
			for _, pn := range s.PrivateNet {
				if pn.Network == n.ID && p.Contains(netip.MustParseAddr(pn.IP)) {
					return nil, nil, fail("service_error", "servers are attached")
				}
			}
		}
		for _, lb := range c.st.LoadBalancers {
			if lb.Network == n.ID && lb.PrivateIP != "" && p.Contains(netip.MustParseAddr(lb.PrivateIP)) {
				return nil, nil, fail("service_error", "load balancers are attached")
			}
		}
		return func() *apiError {
			if i := slices.IndexFunc(n.Subnets, func(s Subnet) bool { return s.IPRange == in.IPRange }); i >= 0 {
				n.Subnets = slices.Delete(n.Subnets, i, i+1)
			}
			return nil
		}, nil, nil
	}))
}

// checkSubnet validates a new subnet's range against its network.
func (c *Cloud) checkSubnet(n *Network, cidr string) *apiError {
	p, err := netip.ParsePrefix(cidr)
	np := netip.MustParsePrefix(n.IPRange)
	if err != nil || p != p.Masked() || p.Bits() < np.Bits() || !np.Contains(p.Addr()) {
		return invalid("ip_range", "%q is not a network in CIDR notation inside %s", cidr, n.IPRange)
	}
	// Hetzner Cloud API reference, Networks: Add a subnet — "Minimum
	// Network size is /30".
	if p.Bits() > 30 {
		return invalid("ip_range", "minimum subnet size is /30, got /%d", p.Bits())
	}
	for _, s := range n.Subnets {
		if netip.MustParsePrefix(s.IPRange).Overlaps(p) {
			return invalid("ip_range", "%s overlaps subnet %s", cidr, s.IPRange)
		}
	}
	return nil
}

// allocIP hands out the next free address of subnet cidr in network n
// (the first address of the network is its gateway).
func (c *Cloud) allocIP(n *Network, cidr string) (string, *apiError) {
	p := netip.MustParsePrefix(cidr)
	used := map[string]bool{netip.MustParsePrefix(n.IPRange).Masked().Addr().Next().String(): true}
	for _, s := range c.st.Servers {
		for _, pn := range s.PrivateNet {
			used[pn.IP] = true
		}
	}
	for _, lb := range c.st.LoadBalancers {
		used[lb.PrivateIP] = true
	}
	for a := p.Masked().Addr().Next(); p.Contains(a); a = a.Next() {
		if !used[a.String()] && p.Contains(a.Next()) { // skip the broadcast address
			return a.String(), nil
		}
	}
	return "", fail("no_subnet_available", "no free IP in subnet %s", cidr)
}

// addressIn hands out an address in network n to an object in location:
// in subnet ipRange, or the first subnet of the location's network zone.
func (c *Cloud) addressIn(n *Network, ipRange, location string) (string, *apiError) {
	loc, _ := locationByName(location)
	cidr, e := subnetFor(n, ipRange, loc.NetworkZone)
	if e != nil {
		return "", e
	}
	return c.allocIP(n, cidr)
}

// subnetReady refuses an attach in subnet ipRange of n (or, without
// ipRange, in the location's zone) while it was added too recently
// (SubnetLag): the API answers no_subnet_available for a moment.
func (c *Cloud) subnetReady(n *Network, ipRange, zone string) *apiError {
	for _, s := range n.Subnets {
		if ((ipRange != "" && s.IPRange == ipRange) || (ipRange == "" && s.NetworkZone == zone)) && c.opts.Now().Before(s.ready) {
			return fail("no_subnet_available", "no subnet available in network %d", n.ID)
		}
	}
	return nil
}

// subnetFor picks the subnet of n to attach to: ipRange when given, else
// the first subnet in zone.
func subnetFor(n *Network, ipRange, zone string) (string, *apiError) {
	for _, s := range n.Subnets {
		if (ipRange != "" && s.IPRange == ipRange) || (ipRange == "" && s.NetworkZone == zone) {
			return s.IPRange, nil
		}
	}
	if ipRange != "" {
		return "", invalid("ip_range", "network %d has no subnet %s", n.ID, ipRange)
	}
	return "", fail("no_subnet_available", "network %d has no subnet in network zone %s", n.ID, zone)
}
