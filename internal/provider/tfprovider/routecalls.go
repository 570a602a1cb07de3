package tfprovider

import (
	"context"

	"github.com/kyku/action/internal/provider"
)

// The Router's calls about one object, each to the provider of its type.

func (r *Router) PlanChange(ctx context.Context, req provider.ChangeRequest) (provider.ChangePlan, error) {
	p, err := r.to(req.Type)
	if err != nil {
		return provider.ChangePlan{}, err
	}
	return p.PlanChange(ctx, req)
}

func (r *Router) Create(ctx context.Context, res provider.Resource) (provider.Object, error) {
	p, err := r.to(res.Type)
	if err != nil {
		return provider.Object{}, provider.NoObject(err) // no provider was asked
	}
	return p.Create(ctx, res)
}

func (r *Router) Update(ctx context.Context, id string, res provider.Resource) (provider.Object, error) {
	p, err := r.to(res.Type)
	if err != nil {
		return provider.Object{}, err
	}
	return p.Update(ctx, id, res)
}

func (r *Router) Delete(ctx context.Context, typ, id string) error {
	p, err := r.to(typ)
	if err != nil {
		return err
	}
	return p.Delete(ctx, typ, id)
}

func (r *Router) DeleteStored(ctx context.Context, typ, id string, s provider.Stored, prior *provider.Planned) error {
	p, err := r.to(typ)
	if err != nil {
		return err
	}
	return p.DeleteStored(ctx, typ, id, s, prior)
}

// Rename renames base's objects; a Terraform provider's, and those of a
// provider not configured, keep their names (the state moves alone).
func (r *Router) Rename(ctx context.Context, id string, res provider.Resource) (provider.Object, error) {
	p, err := r.to(res.Type)
	if err != nil {
		return provider.Object{ID: id, CloudName: res.CloudName}, nil
	}
	return p.Rename(ctx, id, res)
}

func (r *Router) Read(ctx context.Context, typ, id string) (provider.Object, error) {
	p, err := r.to(typ)
	if err != nil {
		return provider.Object{}, err
	}
	return p.Read(ctx, typ, id)
}

func (r *Router) ReadStored(ctx context.Context, typ, id string, s provider.Stored) (provider.Object, error) {
	p, err := r.to(typ)
	if err != nil {
		return provider.Object{}, err
	}
	return p.ReadStored(ctx, typ, id, s)
}

// ReadMany asks base about its types; a Terraform provider's objects are
// read one at a time.
func (r *Router) ReadMany(ctx context.Context, prefix string, refs []provider.Ref) (map[provider.Ref]provider.Object, error) {
	base := make([]provider.Ref, 0, len(refs))
	for _, ref := range refs {
		if !r.ownState(ref.Type) {
			base = append(base, ref)
		}
	}
	if len(base) == 0 {
		return nil, nil
	}
	return r.base.ReadMany(ctx, prefix, base)
}

func (r *Router) Lookup(ctx context.Context, typ, cloudName string) (provider.Object, error) {
	p, err := r.to(typ)
	if err != nil {
		return provider.Object{}, err
	}
	return p.Lookup(ctx, typ, cloudName)
}

func (r *Router) Import(ctx context.Context, typ, id string) (provider.Object, error) {
	p, err := r.to(typ)
	if err != nil {
		return provider.Object{}, err
	}
	return p.Import(ctx, typ, id)
}

func (r *Router) ReadData(ctx context.Context, typ string, props map[string]any) (map[string]any, []string, error) {
	p, err := r.to(typ)
	if err != nil {
		return nil, nil, err
	}
	return p.ReadData(ctx, typ, props)
}

func (r *Router) PlanData(ctx context.Context, typ string, props map[string]any) (map[string]any, []string, error) {
	p, err := r.to(typ)
	if err != nil {
		return nil, nil, err
	}
	return p.PlanData(ctx, typ, props)
}
