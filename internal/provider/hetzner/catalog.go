package hetzner

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/kyku/action/internal/provider"
)

// serverTypeInfo is what planning needs of one server type.
type serverTypeInfo struct {
	Name         string
	Architecture string // x86, arm
	StorageType  string // local, network
	Disk         int    // GB
	Deprecated   bool   // deprecated everywhere
	Locations    map[string]bool
}

// catalog is the server types of the project, read once per provider
// (one plan): GET /server_types, every page.
type catalog struct {
	types map[string]*serverTypeInfo
}

// catalog returns the server types, reading them on first use; an error
// is not cached (the next plan asks again).
func (p *Provider) catalog(ctx context.Context) (*catalog, error) {
	p.catMu.Lock()
	defer p.catMu.Unlock()
	if p.cat != nil {
		return p.cat, nil
	}
	sts, _, err := all(ctx, p, "list server types", func(ctx context.Context, o hcloud.ListOpts) ([]*hcloud.ServerType, *hcloud.Response, error) {
		return p.c.ServerType.List(ctx, hcloud.ServerTypeListOpts{ListOpts: o})
	}, "")
	if err != nil {
		return nil, err
	}
	c := &catalog{types: make(map[string]*serverTypeInfo, len(sts))}
	for _, st := range sts {
		info := &serverTypeInfo{
			Name: st.Name, Architecture: string(st.Architecture), StorageType: string(st.StorageType), Disk: st.Disk,
			Deprecated: st.IsDeprecated(), Locations: map[string]bool{},
		}
		for _, l := range st.Locations {
			if l.Location != nil && l.Available && !l.IsDeprecated() {
				info.Locations[l.Location.Name] = true
			}
		}
		c.types[st.Name] = info
	}
	p.cat = c
	return c, nil
}

// sold lists the server types sold in location, sorted.
func (c *catalog) sold(location string) []string {
	var out []string
	for name, t := range c.types {
		if t.Locations[location] && !t.Deprecated {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// pick is the server type size means in location: the first of its
// types (sizes) sold there; an error says what is sold instead.
func (c *catalog) pick(size, location string) (string, error) {
	ts, err := serverTypes(size)
	if err != nil {
		return "", err
	}
	for _, name := range ts {
		if t := c.types[name]; t != nil && !t.Deprecated && t.Locations[location] {
			return name, nil
		}
	}
	sold := strings.Join(c.sold(location), ", ")
	switch {
	case len(ts) > 1:
		return "", fmt.Errorf("size %s is server type %s, none of which hetzner sells in %s (it sells %s): name one of those as size", size, strings.Join(ts, ", "), location, sold)
	case c.types[size] == nil:
		return "", fmt.Errorf("hetzner has no server type %s (%s sells %s)", size, location, sold)
	}
	return "", fmt.Errorf("server type %s, which hetzner does not sell in %s (it sells %s)", size, location, sold)
}

// typeFor is the server type size means in the provider's location.
func (p *Provider) typeFor(ctx context.Context, size string) (string, error) {
	cat, err := p.catalog(ctx)
	if err != nil {
		return "", err
	}
	return cat.pick(size, p.opts.Location)
}

// CheckCloud: every Vm's size must be a
// server type the configured location sells, or a size (small, medium,
// large) one of whose types it sells (Hetzner Cloud API reference, Server
// Types: locations, available; the CX line, for one, is not sold in ash,
// hil or sin, so small is cpx22 there). One request per plan: the server
// types, cached.
func (p *Provider) CheckCloud(ctx context.Context, rs []provider.Desired) ([]provider.Refusal, error) {
	var vms []provider.Desired
	for _, r := range rs {
		if r.Type == "Vm" {
			vms = append(vms, r)
		}
	}
	if len(vms) == 0 {
		return nil, nil
	}
	cat, err := p.catalog(ctx)
	if err != nil {
		return nil, err
	}
	loc := p.opts.Location
	var out []provider.Refusal
	for _, r := range vms {
		size, ok := literalString(r.Properties["size"])
		if !ok {
			continue
		}
		if size == "" {
			size = "small"
		}
		if _, err := serverTypes(size); err != nil {
			continue // refused before planning
		}
		if _, err := cat.pick(size, loc); err != nil {
			out = append(out, provider.Refusal{Resource: r.Name, Path: "size", Reason: err.Error()})
		}
	}
	return out, nil
}
