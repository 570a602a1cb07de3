package hetzner

import (
	"context"
	"fmt"
	"maps"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

var _ provider.Renamer = (*Provider)(nil)

// renamer is a kind whose objects take a new name and labels in one
// update (servers, networks, firewalls, load balancers, SSH keys).
// Subnets have no name, and a target group's ID is its name: they keep
// theirs.
type renamer interface {
	rename(ctx context.Context, id int64, name string, labels func(have map[string]string) map[string]string) error
}

// CanRename implements provider.Renamer.
func (p *Provider) CanRename(typ string) bool {
	k, err := p.kind(typ)
	if err != nil {
		return false
	}
	_, ok := k.(renamer)
	return ok
}

// Rename gives the object the name r.CloudName and the kyku-name label of
// r.Name, in one update; its ID and everything else stay.
func (p *Provider) Rename(ctx context.Context, id string, r provider.Resource) (provider.Object, error) {
	k, err := p.kind(r.Type)
	if err != nil {
		return provider.Object{}, err
	}
	rn, ok := k.(renamer)
	if !ok {
		return k.read(ctx, id)
	}
	nid, err := parseID(id)
	if err != nil {
		return provider.Object{}, err
	}
	if r.CloudName == "" || !labelRE.MatchString(r.CloudName) {
		return provider.Object{}, fmt.Errorf("rename %s %s: %q is not a name hetzner accepts", r.Type, id, r.CloudName)
	}
	label := value.SafeName(r.Name)
	err = rn.rename(ctx, nid, r.CloudName, func(have map[string]string) map[string]string {
		want := maps.Clone(have)
		if want == nil {
			want = map[string]string{}
		}
		want[labelName] = label
		return want
	})
	if err != nil {
		return provider.Object{}, fmt.Errorf("rename %s %s to %q: %w", r.Type, id, r.CloudName, err)
	}
	return k.read(ctx, id)
}

func (k serverKind) rename(ctx context.Context, id int64, name string, labels func(map[string]string) map[string]string) error {
	mu := k.p.mutex(fmt.Sprintf("labels/server/%d", id)) // target groups label servers too
	mu.Lock()
	defer mu.Unlock()
	s, err := k.get(ctx, id)
	if err != nil {
		return err
	}
	return k.p.call(ctx, "rename server", func(ctx context.Context) (r *hcloud.Response, err error) {
		_, r, err = k.p.c.Server.Update(ctx, s, hcloud.ServerUpdateOpts{Name: name, Labels: labels(s.Labels)})
		return r, err
	})
}

func (k vpcKind) rename(ctx context.Context, id int64, name string, labels func(map[string]string) map[string]string) error {
	n, err := k.get(ctx, id)
	if err != nil {
		return err
	}
	return k.p.call(ctx, "rename network", func(ctx context.Context) (r *hcloud.Response, err error) {
		_, r, err = k.p.c.Network.Update(ctx, n, hcloud.NetworkUpdateOpts{Name: name, Labels: labels(n.Labels)})
		return r, err
	})
}

func (k firewallKind) rename(ctx context.Context, id int64, name string, labels func(map[string]string) map[string]string) error {
	f, err := k.get(ctx, id)
	if err != nil {
		return err
	}
	return k.p.call(ctx, "rename firewall", func(ctx context.Context) (r *hcloud.Response, err error) {
		_, r, err = k.p.c.Firewall.Update(ctx, f, hcloud.FirewallUpdateOpts{Name: name, Labels: labels(f.Labels)})
		return r, err
	})
}

func (k lbKind) rename(ctx context.Context, id int64, name string, labels func(map[string]string) map[string]string) error {
	lb, err := k.get(ctx, id)
	if err != nil {
		return err
	}
	return k.p.call(ctx, "rename load balancer", func(ctx context.Context) (r *hcloud.Response, err error) {
		_, r, err = k.p.c.LoadBalancer.Update(ctx, lb, hcloud.LoadBalancerUpdateOpts{Name: name, Labels: labels(lb.Labels)})
		return r, err
	})
}

func (k keyKind) rename(ctx context.Context, id int64, name string, labels func(map[string]string) map[string]string) error {
	key, err := k.get(ctx, id)
	if err != nil {
		return err
	}
	return k.p.call(ctx, "rename ssh key", func(ctx context.Context) (r *hcloud.Response, err error) {
		_, r, err = k.p.c.SSHKey.Update(ctx, key, hcloud.SSHKeyUpdateOpts{Name: name, Labels: labels(key.Labels)})
		return r, err
	})
}
