package hetzner

import (
	"context"
	"strconv"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/property"
)

// keyKind maps SshKey to an SSH key. Hetzner keeps one key per
// fingerprint: a second SshKey with the same public key under another
// name is refused with the name of the key that holds it.
type keyKind struct{ p *Provider }

func keyObject(k *hcloud.SSHKey) provider.Object {
	props := map[string]any{"publicKey": k.PublicKey}
	return provider.NewObject(strconv.FormatInt(k.ID, 10), k.Name, property.SetTags(props, k.Labels, isKykuLabel), nil)
}

func (p *Provider) sshKeys() api[hcloud.SSHKey] {
	return api[hcloud.SSHKey]{
		p: p, what: "ssh key", get: p.c.SSHKey.GetByID,
		// Unique by name and by fingerprint: with no key of the name, the
		// public key is taken.
		clash: "this public key is already in the project under another name (Hetzner keeps one SSH key per fingerprint); reference that key or use another public key",
		list: func(ctx context.Context, name, selector string) ([]*hcloud.SSHKey, *hcloud.Response, error) {
			return p.c.SSHKey.List(ctx, hcloud.SSHKeyListOpts{Name: name, ListOpts: hcloud.ListOpts{LabelSelector: selector}})
		},
		labels: func(k *hcloud.SSHKey) map[string]string { return k.Labels },
		relabel: func(ctx context.Context, k *hcloud.SSHKey, labels map[string]string) (*hcloud.SSHKey, *hcloud.Response, error) {
			return p.c.SSHKey.Update(ctx, k, hcloud.SSHKeyUpdateOpts{Labels: labels})
		},
		rename: func(ctx context.Context, k *hcloud.SSHKey, name string, labels map[string]string) (*hcloud.SSHKey, *hcloud.Response, error) {
			return p.c.SSHKey.Update(ctx, k, hcloud.SSHKeyUpdateOpts{Name: name, Labels: labels})
		},
		del: func(ctx context.Context, k *hcloud.SSHKey) (*hcloud.Action, *hcloud.Response, error) {
			r, err := p.c.SSHKey.Delete(ctx, k)
			return nil, r, err
		},
		object: func(_ context.Context, k *hcloud.SSHKey) (provider.Object, error) { return keyObject(k), nil },
	}
}

func (k keyKind) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	pub := property.String(r.Properties, "publicKey")
	key, err := k.p.sshKeys().ensure(ctx, r.CloudName, func(ctx context.Context) (*hcloud.SSHKey, []*hcloud.Action, *hcloud.Response, error) {
		key, resp, err := k.p.c.SSHKey.Create(ctx, hcloud.SSHKeyCreateOpts{Name: r.CloudName, PublicKey: pub, Labels: wantLabels(r, nil)})
		return key, nil, resp, err
	})
	if err != nil {
		return provider.Object{}, err
	}
	return keyObject(key), nil
}

func (k keyKind) Read(ctx context.Context, id string) (provider.Object, error) {
	return k.p.sshKeys().read(ctx, id)
}

func (k keyKind) Update(ctx context.Context, id string, r provider.Resource, _ provider.Object) (provider.Object, error) {
	keys := k.p.sshKeys()
	key, err := keys.byProviderID(ctx, id)
	if err != nil {
		return provider.Object{}, err
	}
	if key, err = keys.label(ctx, key, wantLabels(r, nil)); err != nil {
		return provider.Object{}, err
	}
	return keyObject(key), nil
}

func (k keyKind) Delete(ctx context.Context, id string) error {
	return k.p.sshKeys().remove(ctx, id)
}

func (k keyKind) Lookup(ctx context.Context, name string) (provider.Object, error) {
	return k.p.sshKeys().lookup(ctx, name)
}
