package hetzner

import (
	"context"
	"fmt"
	"maps"
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

func (k keyKind) get(ctx context.Context, id int64) (*hcloud.SSHKey, error) {
	var key *hcloud.SSHKey
	err := k.p.call(ctx, "get ssh key", func(ctx context.Context) (r *hcloud.Response, err error) {
		key, r, err = k.p.c.SSHKey.GetByID(ctx, id)
		return r, err
	})
	if err != nil {
		return nil, err
	}
	if key == nil {
		return nil, provider.NotFound(fmt.Sprintf("ssh key %d", id))
	}
	return key, nil
}

func (k keyKind) list(ctx context.Context, opts hcloud.SSHKeyListOpts) (*hcloud.SSHKey, error) {
	var ks []*hcloud.SSHKey
	err := k.p.call(ctx, "list ssh keys", func(ctx context.Context) (r *hcloud.Response, err error) {
		ks, r, err = k.p.c.SSHKey.List(ctx, opts)
		return r, err
	})
	if err != nil || len(ks) == 0 {
		return nil, err
	}
	return ks[0], nil
}

func (k keyKind) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	pub := property.String(r.Properties, "publicKey")
	key, err := k.list(ctx, hcloud.SSHKeyListOpts{Name: r.CloudName})
	if err != nil {
		return provider.Object{}, err
	}
	if key == nil {
		err = k.p.call(ctx, "create ssh key", func(ctx context.Context) (resp *hcloud.Response, err error) {
			key, resp, err = k.p.c.SSHKey.Create(ctx, hcloud.SSHKeyCreateOpts{Name: r.CloudName, PublicKey: pub, Labels: wantLabels(r, nil)})
			return resp, err
		})
		if isCode(err, hcloud.ErrorCodeUniquenessError) {
			// Unique by name and by fingerprint: find which.
			if key, err = k.list(ctx, hcloud.SSHKeyListOpts{Name: r.CloudName}); err == nil && key == nil {
				err = fmt.Errorf("this public key is already in the project under another name (Hetzner keeps one SSH key per fingerprint); reference that key or use another public key")
			}
		}
		if err != nil {
			return provider.Object{}, err
		}
	}
	if err := managed("ssh key", r.CloudName, key.Labels); err != nil {
		return provider.Object{}, err
	}
	return keyObject(key), nil
}

func (k keyKind) Read(ctx context.Context, id string) (provider.Object, error) {
	kid, err := parseID(id)
	if err != nil {
		return provider.Object{}, err
	}
	key, err := k.get(ctx, kid)
	if err != nil {
		return provider.Object{}, err
	}
	return keyObject(key), nil
}

func (k keyKind) Update(ctx context.Context, id string, r provider.Resource, _ provider.Object) (provider.Object, error) {
	kid, err := parseID(id)
	if err != nil {
		return provider.Object{}, err
	}
	key, err := k.get(ctx, kid)
	if err != nil {
		return provider.Object{}, err
	}
	if want := wantLabels(r, nil); !maps.Equal(want, key.Labels) {
		err := k.p.call(ctx, "label ssh key", func(ctx context.Context) (resp *hcloud.Response, err error) {
			key, resp, err = k.p.c.SSHKey.Update(ctx, key, hcloud.SSHKeyUpdateOpts{Labels: want})
			return resp, err
		})
		if err != nil {
			return provider.Object{}, err
		}
	}
	return keyObject(key), nil
}

func (k keyKind) Delete(ctx context.Context, id string) error {
	kid, err := parseID(id)
	if err != nil {
		return err
	}
	key, err := k.get(ctx, kid)
	if err != nil {
		return err
	}
	return k.p.call(ctx, "delete ssh key", func(ctx context.Context) (*hcloud.Response, error) {
		return k.p.c.SSHKey.Delete(ctx, key)
	})
}

func (k keyKind) Lookup(ctx context.Context, name string) (provider.Object, error) {
	key, err := k.list(ctx, hcloud.SSHKeyListOpts{Name: name, ListOpts: hcloud.ListOpts{LabelSelector: labelManaged + "=true"}})
	if err != nil {
		return provider.Object{}, err
	}
	if key == nil {
		return provider.Object{}, provider.NotFound("ssh key " + name)
	}
	return keyObject(key), nil
}
