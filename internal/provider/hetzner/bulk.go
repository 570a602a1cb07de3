package hetzner

import (
	"context"
	"sort"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/kyku/action/internal/provider"
)

// ReadMany lists each kind of object the
// refs need by the label selector kyku-managed=true,kyku-prefix=<prefix>,
// every page (50 a page), instead of one request per object. Networks
// answer for Vpc and Subnet refs (subnets live in their network), servers
// for Vm and TargetGroup refs (a group is a label on its servers),
// firewalls, SSH keys and load balancers for their own. So a plan costs
// the sum of the pages of at most five listings, whatever its size. A ref
// the listings did not return (another prefix, a Vm whose network is not
// Kyku's) is left out: the engine reads it alone before calling it gone.
func (p *Provider) ReadMany(ctx context.Context, prefix string, refs []provider.Ref) (map[provider.Ref]provider.Object, error) {
	out := map[provider.Ref]provider.Object{}
	if prefix == "" || !labelRE().MatchString(prefix) || len(refs) == 0 {
		return out, nil
	}
	need := map[string]bool{}
	for _, r := range refs {
		need[r.Type] = true
	}
	sel := prefixSelector(prefix)
	found := map[provider.Ref]provider.Object{}
	nets := map[int64]*hcloud.Network{}

	if need["Vpc"] || need["Subnet"] || need["Vm"] {
		ns, _, err := all(ctx, p, "list networks", func(ctx context.Context, o hcloud.ListOpts) ([]*hcloud.Network, *hcloud.Response, error) {
			return p.c.Network.List(ctx, hcloud.NetworkListOpts{ListOpts: o})
		}, sel)
		if err != nil {
			return nil, err
		}
		for _, n := range ns {
			nets[n.ID] = n
			o := vpcObject(n)
			found[provider.Ref{Type: "Vpc", ID: o.ID}] = o
			for _, s := range n.Subnets {
				if s.IPRange == nil {
					continue
				}
				if o, ok := subnetObject(n, s.IPRange.String()); ok {
					found[provider.Ref{Type: "Subnet", ID: o.ID}] = o
				}
			}
		}
	}
	if need["SecurityGroup"] {
		fs, _, err := all(ctx, p, "list firewalls", func(ctx context.Context, o hcloud.ListOpts) ([]*hcloud.Firewall, *hcloud.Response, error) {
			return p.c.Firewall.List(ctx, hcloud.FirewallListOpts{ListOpts: o})
		}, sel)
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			o := firewallObject(f)
			found[provider.Ref{Type: "SecurityGroup", ID: o.ID}] = o
		}
	}
	if need["SshKey"] {
		ks, _, err := all(ctx, p, "list ssh keys", func(ctx context.Context, o hcloud.ListOpts) ([]*hcloud.SSHKey, *hcloud.Response, error) {
			return p.c.SSHKey.List(ctx, hcloud.SSHKeyListOpts{ListOpts: o})
		}, sel)
		if err != nil {
			return nil, err
		}
		for _, k := range ks {
			o := keyObject(k)
			found[provider.Ref{Type: "SshKey", ID: o.ID}] = o
		}
	}
	if need["Vm"] || need["TargetGroup"] {
		ss, _, err := all(ctx, p, "list servers", func(ctx context.Context, o hcloud.ListOpts) ([]*hcloud.Server, *hcloud.Response, error) {
			return p.c.Server.List(ctx, hcloud.ServerListOpts{ListOpts: o})
		}, sel)
		if err != nil {
			return nil, err
		}
		groups := map[string][]*hcloud.Server{}
		for _, s := range ss {
			for l := range s.Labels {
				if strings.HasPrefix(l, keyTG) {
					groups[l] = append(groups[l], s)
				}
			}
			if !need["Vm"] || !vmResolvable(s, nets) {
				continue
			}
			o, err := serverKind{p}.object(ctx, s, nets)
			if err != nil {
				return nil, err
			}
			found[provider.Ref{Type: "Vm", ID: o.ID}] = o
		}
		for id, members := range groups {
			sortServers(members)
			if o, ok := tgObject(id, members); ok {
				found[provider.Ref{Type: "TargetGroup", ID: id}] = o
			}
		}
	}
	if need["LoadBalancer"] {
		lbs, _, err := all(ctx, p, "list load balancers", func(ctx context.Context, o hcloud.ListOpts) ([]*hcloud.LoadBalancer, *hcloud.Response, error) {
			return p.c.LoadBalancer.List(ctx, hcloud.LoadBalancerListOpts{ListOpts: o})
		}, sel)
		if err != nil {
			return nil, err
		}
		for _, lb := range lbs {
			o := lbObject(lb)
			found[provider.Ref{Type: "LoadBalancer", ID: o.ID}] = o
		}
	}
	for _, r := range refs {
		if o, ok := found[r]; ok {
			out[r] = o
		}
	}
	return out, nil
}

// vmResolvable reports whether the server's subnet (when its Vm asked for
// one) can be told from the networks already listed, so reading it in
// bulk costs no extra request.
func vmResolvable(s *hcloud.Server, nets map[int64]*hcloud.Network) bool {
	if !strings.Contains(s.Labels[labelAttach], "subnet") || len(s.PrivateNet) == 0 || s.PrivateNet[0].Network == nil {
		return true
	}
	return nets[s.PrivateNet[0].Network.ID] != nil
}

func sortServers(ss []*hcloud.Server) {
	sort.Slice(ss, func(i, j int) bool { return ss[i].ID < ss[j].ID })
}
