package hetzner

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/property"
)

// perPage is the largest page the API serves.
const perPage = 50

// all reads every page of a listing; it returns the items and the number
// of requests it made.
func all[T any](ctx context.Context, p *Provider, op string, list func(ctx context.Context, opts hcloud.ListOpts) ([]T, *hcloud.Response, error), selector string) ([]T, int, error) {
	var out []T
	calls := 0
	for page := 1; page > 0; {
		var items []T
		var next int
		err := p.call(ctx, op, func(ctx context.Context) (*hcloud.Response, error) {
			var r *hcloud.Response
			var err error
			items, r, err = list(ctx, hcloud.ListOpts{Page: page, PerPage: perPage, LabelSelector: selector})
			next = 0
			if err == nil && r != nil && r.Meta.Pagination != nil {
				next = r.Meta.Pagination.NextPage
			}
			return r, err
		})
		calls++
		if err != nil {
			return nil, calls, err
		}
		out = append(out, items...)
		if next <= page {
			break
		}
		page = next
	}
	return out, calls, nil
}

// vpcKind maps Vpc to a network: cidr is its IP range; distributeAcrossAzs
// (the engine's) is kept in the kyku-azs label so Read reports it.
type vpcKind struct{ p *Provider }

func (p *Provider) networks() api[hcloud.Network] {
	return api[hcloud.Network]{
		p: p, what: "network", get: p.c.Network.GetByID,
		list: func(ctx context.Context, name, selector string) ([]*hcloud.Network, *hcloud.Response, error) {
			return p.c.Network.List(ctx, hcloud.NetworkListOpts{Name: name, ListOpts: hcloud.ListOpts{LabelSelector: selector}})
		},
		labels: func(n *hcloud.Network) map[string]string { return n.Labels },
		relabel: func(ctx context.Context, n *hcloud.Network, labels map[string]string) (*hcloud.Network, *hcloud.Response, error) {
			return p.c.Network.Update(ctx, n, hcloud.NetworkUpdateOpts{Labels: labels})
		},
		rename: func(ctx context.Context, n *hcloud.Network, name string, labels map[string]string) (*hcloud.Network, *hcloud.Response, error) {
			return p.c.Network.Update(ctx, n, hcloud.NetworkUpdateOpts{Name: name, Labels: labels})
		},
		del: func(ctx context.Context, n *hcloud.Network) (*hcloud.Action, *hcloud.Response, error) {
			r, err := p.c.Network.Delete(ctx, n)
			return nil, r, err
		},
		object: func(_ context.Context, n *hcloud.Network) (provider.Object, error) { return vpcObject(n), nil },
	}
}

func vpcObject(n *hcloud.Network) provider.Object {
	azs, _ := strconv.Atoi(n.Labels[labelAZs])
	props := map[string]any{"cidr": n.IPRange.String(), "distributeAcrossAzs": float64(azs)}
	return provider.NewObject(strconv.FormatInt(n.ID, 10), n.Name, property.SetTags(props, n.Labels, isKykuLabel), nil)
}

func vpcLabels(r provider.Resource) map[string]string {
	return wantLabels(r, map[string]string{labelAZs: strconv.Itoa(property.Int(r.Properties, "distributeAcrossAzs", 0))})
}

func (k vpcKind) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	cidr := property.String(r.Properties, "cidr")
	_, ipn, err := net.ParseCIDR(cidr)
	if err != nil || ipn.String() != cidr {
		return provider.Object{}, fmt.Errorf("cidr %q is not a network in CIDR notation (e.g. 10.0.0.0/16)", cidr)
	}
	n, err := k.p.networks().ensure(ctx, r.CloudName, func(ctx context.Context) (*hcloud.Network, []*hcloud.Action, *hcloud.Response, error) {
		n, resp, err := k.p.c.Network.Create(ctx, hcloud.NetworkCreateOpts{Name: r.CloudName, IPRange: ipn, Labels: vpcLabels(r)})
		return n, nil, resp, err
	})
	if err != nil {
		return provider.Object{}, err
	}
	return vpcObject(n), nil
}

func (k vpcKind) Read(ctx context.Context, id string) (provider.Object, error) {
	return k.p.networks().read(ctx, id)
}

func (k vpcKind) Update(ctx context.Context, id string, r provider.Resource, _ provider.Object) (provider.Object, error) {
	nid, err := parseID(id)
	if err != nil {
		return provider.Object{}, err
	}
	n, err := k.p.networks().setLabels(ctx, nid, func(have map[string]string) map[string]string {
		return keep(vpcLabels(r), have, keySubnet, keyPublic)
	})
	if err != nil {
		return provider.Object{}, err
	}
	return vpcObject(n), nil
}

func (k vpcKind) Delete(ctx context.Context, id string) error {
	return k.p.networks().remove(ctx, id)
}

func (k vpcKind) Lookup(ctx context.Context, name string) (provider.Object, error) {
	return k.p.networks().lookup(ctx, name)
}

// subnetKind maps Subnet to a subnet (type cloud) of its network. A
// Hetzner subnet has no ID, name or labels of its own: its provider ID is
// "<network ID>/<cidr>", and its cloud name and public flag are kept as
// labels of its network (kyku-subnet/<cidr>, kyku-public/<cidr>, with the
// CIDR's "/" written "-").
type subnetKind struct{ p *Provider }

func subnetObject(n *hcloud.Network, cidr string) (provider.Object, bool) {
	for _, s := range n.Subnets {
		if s.IPRange != nil && s.IPRange.String() == cidr {
			key := cidrKey(cidr)
			props := map[string]any{
				"network": strconv.FormatInt(n.ID, 10), "cidr": cidr, "zone": string(s.NetworkZone),
				"public": n.Labels[keyPublic+key] == "true",
			}
			return provider.NewObject(subnetID(n.ID, cidr), n.Labels[keySubnet+key], props, nil), true
		}
	}
	return provider.Object{}, false
}

func (k subnetKind) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	nid, err := refID(r, "network")
	if err != nil {
		return provider.Object{}, err
	}
	cidr := property.String(r.Properties, "cidr")
	_, ipn, err := net.ParseCIDR(cidr)
	if err != nil || ipn.String() != cidr {
		return provider.Object{}, fmt.Errorf("cidr %q is not a network in CIDR notation (e.g. 10.0.1.0/24)", cidr)
	}
	zone := property.String(r.Properties, "zone")
	networks := k.p.networks()
	// One subnet change per network at a time in this process: the API
	// locks the network while an add_subnet action runs anyway.
	mu := k.p.mutex(fmt.Sprintf("subnets/network/%d", nid))
	mu.Lock()
	defer mu.Unlock()
	n, err := networks.byID(ctx, nid)
	if err != nil {
		return provider.Object{}, err
	}
	if err := managed("network", n.Name, n.Labels); err != nil {
		return provider.Object{}, err
	}
	if _, ok := subnetObject(n, cidr); !ok {
		err := k.p.act(ctx, "add subnet "+cidr, func(ctx context.Context) ([]*hcloud.Action, *hcloud.Response, error) {
			return one(k.p.c.Network.AddSubnet(ctx, n, hcloud.NetworkAddSubnetOpts{Subnet: hcloud.NetworkSubnet{
				Type: hcloud.NetworkSubnetTypeCloud, IPRange: ipn, NetworkZone: hcloud.NetworkZone(zone),
			}}))
		})
		if err != nil && ctx.Err() == nil {
			// A retried add whose first answer was lost fails (locked,
			// overlap) although the subnet is being made: wait for it.
			if werr := k.waitSubnet(ctx, nid, cidr); werr == nil {
				err = nil
			}
		}
		if err != nil {
			return provider.Object{}, err
		}
	}
	n, err = networks.setLabels(ctx, nid, func(have map[string]string) map[string]string {
		want := keep(map[string]string{}, have, "")
		want[keySubnet+cidrKey(cidr)] = r.CloudName
		want[keyPublic+cidrKey(cidr)] = strconv.FormatBool(property.Bool(r.Properties, "public"))
		return want
	})
	if err != nil {
		return provider.Object{}, err
	}
	obj, ok := subnetObject(n, cidr)
	if !ok {
		return provider.Object{}, fmt.Errorf("subnet %s missing from network %d after adding it", cidr, nid)
	}
	return obj, nil
}

// waitSubnet waits a few polls for subnet cidr to appear in network nid.
func (k subnetKind) waitSubnet(ctx context.Context, nid int64, cidr string) error {
	polls := 0
	return k.p.poll(ctx, "subnet "+cidr, func(ctx context.Context) (bool, error) {
		n, err := k.p.networks().byID(ctx, nid)
		if err != nil {
			return false, err
		}
		if _, ok := subnetObject(n, cidr); ok {
			return true, nil
		}
		if polls++; polls > 10 {
			return false, fmt.Errorf("subnet %s did not appear", cidr)
		}
		return false, nil
	})
}

func (k subnetKind) Read(ctx context.Context, id string) (provider.Object, error) {
	nid, ipn, err := parseSubnetID(id)
	if err != nil {
		return provider.Object{}, err
	}
	n, err := k.p.networks().byID(ctx, nid)
	return subnetIn(n, id, ipn, err)
}

// subnetIn reports subnet id (range ipn) of network n as read (with err);
// not found when n has no such subnet.
func subnetIn(n *hcloud.Network, id string, ipn *net.IPNet, err error) (provider.Object, error) {
	if err != nil {
		return provider.Object{}, err
	}
	obj, ok := subnetObject(n, ipn.String())
	if !ok {
		return provider.Object{}, provider.NotFound("subnet " + id)
	}
	return obj, nil
}

// update changes what can change in place: the public flag (a label; on
// Hetzner every server has a public interface either way).
func (k subnetKind) Update(ctx context.Context, id string, r provider.Resource, _ provider.Object) (provider.Object, error) {
	nid, ipn, err := parseSubnetID(id)
	if err != nil {
		return provider.Object{}, err
	}
	key := cidrKey(ipn.String())
	n, err := k.p.networks().setLabels(ctx, nid, func(have map[string]string) map[string]string {
		want := keep(map[string]string{}, have, "")
		want[keyPublic+key] = strconv.FormatBool(property.Bool(r.Properties, "public"))
		return want
	})
	return subnetIn(n, id, ipn, err)
}

func (k subnetKind) Delete(ctx context.Context, id string) error {
	nid, ipn, err := parseSubnetID(id)
	if err != nil {
		return err
	}
	mu := k.p.mutex(fmt.Sprintf("subnets/network/%d", nid))
	mu.Lock()
	defer mu.Unlock()
	networks := k.p.networks()
	n, err := networks.byID(ctx, nid)
	if err != nil {
		return err
	}
	if _, ok := subnetObject(n, ipn.String()); !ok {
		return provider.NotFound("subnet " + id)
	}
	err = k.p.actChecked(ctx, "delete subnet "+ipn.String(), k.attached(nid, ipn), func(ctx context.Context) ([]*hcloud.Action, *hcloud.Response, error) {
		return one(k.p.c.Network.DeleteSubnet(ctx, n, hcloud.NetworkDeleteSubnetOpts{Subnet: hcloud.NetworkSubnet{IPRange: ipn}}))
	})
	if err != nil {
		return err
	}
	key := cidrKey(ipn.String())
	_, err = networks.setLabels(ctx, nid, func(have map[string]string) map[string]string {
		want := keep(map[string]string{}, have, "")
		delete(want, keySubnet+key)
		delete(want, keyPublic+key)
		return want
	})
	if provider.IsNotFound(err) {
		return nil // the network went meanwhile; so did the subnet
	}
	return err
}

// attached judges a refused delete of subnet ipn of network nid: the API
// answers service_error ("servers are attached") while servers or load
// balancers are attached in it. One that exists still is named at once
// (Kyku's plan moves or removes them first); users that are going away
// are waited for (service_error is retried, bounded).
func (k subnetKind) attached(nid int64, ipn *net.IPNet) check {
	return func(ctx context.Context, err error) (bool, error) {
		if !isCode(err, hcloud.ErrorCodeServiceError) && !isCode(err, hcloud.ErrorCodeResourceInUse) {
			return false, nil
		}
		n, rerr := k.p.networks().byID(ctx, nid)
		if rerr != nil {
			return false, nil
		}
		for _, ref := range n.Servers {
			s, serr := k.p.servers().byID(ctx, ref.ID)
			if serr != nil || s.Status == hcloud.ServerStatusDeleting {
				continue
			}
			for _, pn := range s.PrivateNet {
				if pn.Network != nil && pn.Network.ID == nid && ipn.Contains(pn.IP) {
					return false, fmt.Errorf("subnet %s still has server %q (%d) attached: detach it or delete it first: %w", ipn, s.Name, s.ID, err)
				}
			}
		}
		for _, ref := range n.LoadBalancers {
			lb, lerr := k.p.loadBalancers().byID(ctx, ref.ID)
			if lerr != nil {
				continue
			}
			for _, pn := range lb.PrivateNet {
				if pn.Network != nil && pn.Network.ID == nid && ipn.Contains(pn.IP) {
					return false, fmt.Errorf("subnet %s still has load balancer %q (%d) attached: delete it first: %w", ipn, lb.Name, lb.ID, err)
				}
			}
		}
		return isCode(err, hcloud.ErrorCodeResourceInUse), nil
	}
}

func (k subnetKind) Lookup(ctx context.Context, name string) (provider.Object, error) {
	ns, _, err := all(ctx, k.p, "list networks", func(ctx context.Context, o hcloud.ListOpts) ([]*hcloud.Network, *hcloud.Response, error) {
		return k.p.c.Network.List(ctx, hcloud.NetworkListOpts{ListOpts: o})
	}, labelManaged+"=true")
	if err != nil {
		return provider.Object{}, err
	}
	for _, n := range ns {
		for _, s := range n.Subnets {
			if s.IPRange == nil {
				continue
			}
			if obj, ok := subnetObject(n, s.IPRange.String()); ok && obj.CloudName == name {
				return obj, nil
			}
		}
	}
	return provider.Object{}, provider.NotFound("subnet " + name)
}
