package hetzner

import (
	"context"
	"fmt"
	"maps"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

// namer renames one object: a new name and labels in one update.
type namer func(ctx context.Context, id int64, name string, labels func(have map[string]string) map[string]string) error

// namer is how objects of typ take a new name (servers, networks,
// firewalls, load balancers, SSH keys); nil for the types that keep
// theirs: subnets have no name, and a target group's ID is its name.
func (p *Provider) namer(typ string) namer {
	switch typ {
	case "Vm":
		return p.servers().setName
	case "Vpc":
		return p.networks().setName
	case "SecurityGroup":
		return p.firewalls().setName
	case "LoadBalancer":
		return p.loadBalancers().setName
	case "SshKey":
		return p.sshKeys().setName
	}
	return nil
}

// Rename gives the object the name r.CloudName and the kyku-name label of
// r.Name, in one update; its ID and everything else stay.
func (p *Provider) Rename(ctx context.Context, id string, r provider.Resource) (provider.Object, error) {
	rename := p.namer(r.Type)
	if rename == nil {
		return p.Read(ctx, r.Type, id)
	}
	nid, err := parseID(id)
	if err != nil {
		return provider.Object{}, err
	}
	if r.CloudName == "" || !labelRE().MatchString(r.CloudName) {
		return provider.Object{}, fmt.Errorf("rename %s %s: %q is not a name hetzner accepts", r.Type, id, r.CloudName)
	}
	label := value.SafeName(r.Name)
	err = rename(ctx, nid, r.CloudName, func(have map[string]string) map[string]string {
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
	return p.Read(ctx, r.Type, id)
}
