package tfprovider

import (
	"context"
	"fmt"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/kyku/action/internal/lang/ctyvalue"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfschema"
	"github.com/kyku/action/internal/value"
)

// ReadStored refreshes an object from what state keeps of it, as
// Terraform does: UpgradeResourceState with its attributes (as state's
// JSON) and their schema version, then ReadResource with the upgraded
// state and its private data. A null new state means the object is gone
// (provider.ErrNotFound).
func (p *Provider) ReadStored(ctx context.Context, typ, id string, s provider.Stored) (provider.Object, error) {
	pl, rs, release, err := p.resourceSchema(ctx, typ, false)
	if err != nil {
		return provider.Object{}, err
	}
	defer release()
	v, err := p.upgrade(ctx, pl, typ, rs, s)
	if err != nil {
		return provider.Object{}, err
	}
	if v.IsNull() {
		return provider.Object{}, provider.NotFound(typ + " " + id)
	}
	resp, err := pl.ReadResource(ctx, tfplugin.ReadRequest{TypeName: typ, State: v, Private: s.Private})
	if err != nil {
		return provider.Object{}, err
	}
	p.learn(rs.Block, resp.NewState)
	if err := diagsError(fmt.Sprintf("read %s %s", typ, id), resp.Diagnostics); err != nil {
		return provider.Object{}, err
	}
	if resp.NewState.IsNull() {
		return provider.Object{}, provider.NotFound(typ + " " + id)
	}
	if err := p.writeOnlyAnswered(rs.Block, resp.NewState, func() string { return "the read of " + typ + " " + id }); err != nil {
		return provider.Object{}, err
	}
	return objectOf(resp.NewState, resp.Private, rs, id), nil
}

// upgrade is the current schema's form of what state keeps of an object
// (UpgradeResourceState, also when the versions are equal: providers
// normalise there).
func (p *Provider) upgrade(ctx context.Context, pl *tfplugin.Provider, typ string, rs *tfschema.Schema, s provider.Stored) (cty.Value, error) {
	raw, err := stateJSON(rs, s)
	if err != nil {
		return cty.NilVal, fmt.Errorf("%s: %w", typ, err)
	}
	v, ds, err := pl.UpgradeResourceState(ctx, typ, s.SchemaVersion, raw)
	if err != nil {
		return cty.NilVal, err
	}
	p.learn(rs.Block, v)
	if err := diagsError("upgrade the state of "+typ, ds); err != nil {
		return cty.NilVal, err
	}
	if err := p.writeOnlyAnswered(rs.Block, v, func() string { return "the upgrade of a state of " + typ }); err != nil {
		return cty.NilVal, err
	}
	return v, nil
}

// stateJSON is the state's attributes as Terraform's state holds them:
// the JSON of the whole object (null attributes too) when they were
// written by the current schema; as they are otherwise (the provider
// knows its older schemas).
func stateJSON(rs *tfschema.Schema, s provider.Stored) ([]byte, error) {
	if s.SchemaVersion == rs.Version {
		ty := rs.Block.ImpliedType()
		if v, err := tfschema.ToCty(s.Attributes, ty); err == nil {
			return ctyjson.Marshal(v, ty)
		}
	}
	b, err := value.AppendJSON(nil, s.Attributes)
	if err != nil {
		return nil, fmt.Errorf("encode its state: %w", err)
	}
	return b, nil
}

// storedValue is an object's state as the provider last read it: the
// value discovery kept, else the state's attributes upgraded.
func (p *Provider) storedValue(ctx context.Context, pl *tfplugin.Provider, typ string, rs *tfschema.Schema, s *provider.Stored) (cty.Value, error) {
	switch v := s.Value.(type) {
	case cty.Value:
		if v.Type().Equals(rs.Block.ImpliedType()) {
			return v, nil
		}
	case encodedState:
		if v.ty.Equals(rs.Block.ImpliedType()) {
			if d, err := tfplugin.UnmarshalMsgpack(v.msgpack, v.ty); err == nil {
				return d, nil
			}
		}
	}
	return p.upgrade(ctx, pl, typ, rs, *s)
}

// DeleteStored destroys an object: ApplyResourceChange from its state
// (the plan's prior state when it has one, else state's, upgraded) to
// null, after a PlanResourceChange of the destroy when the provider asks
// for one (its PlanDestroy capability).
func (p *Provider) DeleteStored(ctx context.Context, typ, id string, s provider.Stored, prior *provider.Planned) error {
	pl, rs, release, err := p.resourceSchema(ctx, typ, false)
	if err != nil {
		return err
	}
	defer release()
	ty := rs.Block.ImpliedType()
	var v cty.Value
	private := s.Private
	if prior != nil && prior.PriorState != nil && prior.SchemaVersion == rs.Version {
		if v, err = tfplugin.UnmarshalMsgpack(prior.PriorState, ty); err != nil {
			return fmt.Errorf("%s %s: decode its planned prior state: %w", typ, id, err)
		}
		private = prior.PriorPrivate
	} else if v, err = p.upgrade(ctx, pl, typ, rs, s); err != nil {
		return err
	}
	if v.IsNull() {
		return nil
	}
	p.learn(rs.Block, v)
	null := cty.NullVal(ty)
	_, schema, _ := p.ensure(ctx)
	if schema != nil && schema.PlanDestroy {
		resp, err := pl.PlanResourceChange(ctx, tfplugin.PlanRequest{TypeName: typ, PriorState: v, ProposedNewState: null, Config: null, PriorPrivate: private})
		if err != nil {
			return err
		}
		if err := diagsError(fmt.Sprintf("plan the destroy of %s %s", typ, id), resp.Diagnostics); err != nil {
			return err
		}
		private = resp.PlannedPrivate
	}
	ar, err := pl.ApplyResourceChange(ctx, tfplugin.ApplyRequest{TypeName: typ, PriorState: v, PlannedState: null, Config: null, PlannedPrivate: private})
	if err != nil {
		return err
	}
	return diagsError(fmt.Sprintf("destroy %s %s", typ, id), ar.Diagnostics)
}

// Import finds an existing object by the user's ID, as `terraform
// import` does: ImportResourceState, then ReadResource of what it found
// (ErrNotFound when the read finds nothing).
func (p *Provider) Import(ctx context.Context, typ, id string) (provider.Object, error) {
	pl, rs, release, err := p.resourceSchema(ctx, typ, false)
	if err != nil {
		return provider.Object{}, err
	}
	defer release()
	found, ds, err := pl.ImportResourceState(ctx, typ, id)
	if err != nil {
		return provider.Object{}, err
	}
	if err := diagsError(fmt.Sprintf("import %s %s", typ, id), ds); err != nil {
		return provider.Object{}, err
	}
	for _, ir := range found {
		if ir.TypeName != typ {
			continue
		}
		p.learn(rs.Block, ir.State)
		resp, err := pl.ReadResource(ctx, tfplugin.ReadRequest{TypeName: typ, State: ir.State, Private: ir.Private})
		if err != nil {
			return provider.Object{}, err
		}
		p.learn(rs.Block, resp.NewState)
		if err := diagsError(fmt.Sprintf("read %s %s", typ, id), resp.Diagnostics); err != nil {
			return provider.Object{}, err
		}
		if resp.NewState.IsNull() {
			break
		}
		if err := p.writeOnlyAnswered(rs.Block, resp.NewState, func() string { return "the import of " + typ + " " + id }); err != nil {
			return provider.Object{}, err
		}
		return objectOf(resp.NewState, resp.Private, rs, id), nil
	}
	return provider.Object{}, provider.NotFound(fmt.Sprintf("%s %s (the provider found no such object to import)", typ, id))
}

// ReadData reads a data source with its resolved configuration
// (ReadDataSource).
func (p *Provider) ReadData(ctx context.Context, typ string, props map[string]any) (map[string]any, []string, error) {
	pl, rs, release, err := p.resourceSchema(ctx, typ, true)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	cfgVal, ds := tfschema.Config(rs.Block, props)
	p.learn(rs.Block, cfgVal)
	if err := diagsError("data source "+typ, append(ds, writeOnlyInData(rs.Block, cfgVal)...)); err != nil {
		return nil, nil, err
	}
	v, ds, err := pl.ReadDataSource(ctx, typ, cfgVal)
	if err != nil {
		return nil, nil, err
	}
	p.learn(rs.Block, v)
	if err := diagsError("read data source "+typ, ds); err != nil {
		return nil, nil, err
	}
	vals := tfschema.FromCtyObject(v)
	if vals == nil {
		vals = map[string]any{}
	}
	return vals, rs.Block.SensitiveNames(), nil
}

// PlanData is what data source typ, read during apply, is known to hold
// at plan: its configuration (props may hold value.Unknown) with every
// attribute the provider computes and props leave unset unknown
// (tfschema.PlannedUnknown), as OpenTofu plans such a read. No call to
// the provider's plugin but its schema.
func (p *Provider) PlanData(ctx context.Context, typ string, props map[string]any) (map[string]any, []string, error) {
	_, rs, release, err := p.resourceSchema(ctx, typ, true)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	cfgVal, ds := tfschema.Config(rs.Block, props)
	if err := diagsError("data source "+typ, ds); err != nil {
		return nil, nil, err
	}
	vals := tfschema.FromCtyObject(tfschema.PlannedUnknown(rs.Block, cfgVal))
	if vals == nil {
		vals = map[string]any{}
	}
	return vals, rs.Block.SensitiveNames(), nil
}

// AttributeType is the type of attribute attr of typ (a data source when
// data) read into by path, from the provider's schema, in Terraform's
// JSON type syntax; nil where the schema does not say (a dynamic
// attribute, a splat).
func (p *Provider) AttributeType(ctx context.Context, typ string, data bool, attr string, path []value.Step) (any, error) {
	_, rs, release, err := p.schemaOf(ctx, typ, data) // its schema only: also when ValidateOnly
	if err != nil {
		return nil, err
	}
	defer release()
	ty := rs.Block.ImpliedType()
	var t cty.Type
	switch {
	case attr == value.AllAttrs:
		t = ty // the whole object: every attribute
	case !ty.HasAttribute(attr):
		return nil, nil
	default:
		var ok bool
		if t, ok = tfschema.PathType(ty.AttributeType(attr), path); !ok {
			return nil, nil
		}
	}
	return ctyvalue.TypeJSON(t), nil
}
