package builtin

import (
	"context"
	"fmt"
	"maps"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

// terraform_data, as OpenTofu 1.12 serves it: input (any type, optional),
// output (computed: input once applied), triggers_replace (any type,
// optional: a change replaces the object), id (computed: a UUID made at
// apply). Its values are canonical ones (package value); null attributes
// are left out, as everywhere a provider's object is.

// attrs are terraform_data's attributes.
var attrs = []string{"id", "input", "output", "triggers_replace"}

// PlanChange plans terraform_data as OpenTofu's PlanResourceChange does,
// from the proposed new state (the configuration, with id and output
// taken from the object):
//   - a create: id unknown; output unknown, or null when input is;
//   - triggers_replace changed: a replace, planned as that create;
//   - input changed: output unknown (an update);
//   - neither: the object as it is (a no-op).
//
// A replace asked for (req.Replace) is planned as a create. As
// Terraform's ignore_changes, the object's value of a property in
// req.IgnoreChanges stands in for the configured one.
func (p *Provider) PlanChange(_ context.Context, req provider.ChangeRequest) (provider.ChangePlan, error) {
	if err := checkType(req.Type); err != nil {
		return provider.ChangePlan{}, err
	}
	prior := priorOf(req)
	cfg := configured(req.Properties, prior, req.IgnoreChanges)
	out := provider.ChangePlan{}
	var planned map[string]any
	switch {
	case prior == nil || req.Replace:
		planned = planCreate(cfg)
	case !value.Equal(prior["triggers_replace"], cfg["triggers_replace"]):
		out.Replace = []provider.Forced{{Path: "triggers_replace"}}
		planned = planCreate(cfg)
	default:
		planned = planUpdate(prior, cfg)
	}
	pl := &provider.Planned{Values: planned, ConfigKnown: !value.HasUnknown(req.Properties)}
	var err error
	if pl.State, err = value.AppendJSON(nil, planned); err != nil {
		return provider.ChangePlan{}, fmt.Errorf("plan %s %q: encode its planned state: %w", req.Type, req.Name, err)
	}
	if prior != nil {
		pl.PriorValues = prior
		if pl.PriorState, err = value.AppendJSON(nil, prior); err != nil {
			return provider.ChangePlan{}, fmt.Errorf("plan %s %q: encode its prior state: %w", req.Type, req.Name, err)
		}
	}
	out.Planned = pl
	return out, nil
}

// priorOf is the object before the change, as discovery read it (what
// state keeps); nil for a create.
func priorOf(req provider.ChangeRequest) map[string]any {
	switch {
	case req.Stored != nil:
		return withoutNulls(req.Stored.Attributes)
	case req.Prior != nil:
		return withoutNulls(req.Prior)
	}
	return nil
}

// configured is the configuration's input and triggers_replace, the
// object's values standing in for those ignore lists.
func configured(props, prior map[string]any, ignore []string) map[string]any {
	cfg := map[string]any{}
	for _, name := range []string{"input", "triggers_replace"} {
		if v, ok := props[name]; ok && v != nil {
			cfg[name] = v
		}
	}
	if prior == nil {
		return cfg
	}
	for _, name := range ignore {
		name, _ = value.CutPath(name) // a part of input: input whole
		if name != "input" && name != "triggers_replace" {
			continue
		}
		if v, ok := prior[name]; ok && v != nil {
			cfg[name] = v
		} else {
			delete(cfg, name)
		}
	}
	return cfg
}

// planCreate is the plan of a new object: id unknown, and output
// unknown unless input is null (output's type is always input's).
func planCreate(cfg map[string]any) map[string]any {
	planned := maps.Clone(cfg)
	planned["id"] = value.Unknown
	if _, ok := cfg["input"]; ok {
		planned["output"] = value.Unknown
	}
	return planned
}

// planUpdate is the plan of an object kept: id and output as they are,
// output unknown when input changes.
func planUpdate(prior, cfg map[string]any) map[string]any {
	planned := maps.Clone(cfg)
	for _, name := range []string{"id", "output"} {
		if v, ok := prior[name]; ok && v != nil {
			planned[name] = v
		}
	}
	if !value.Equal(prior["input"], cfg["input"]) {
		planned["output"] = value.Unknown
	}
	return planned
}

// Create carries out the plan of a new object (r.Planned).
func (p *Provider) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	if err := ctx.Err(); err != nil {
		return provider.Object{}, fmt.Errorf("create %s %q: %w", r.Type, r.Name, err)
	}
	return p.apply(r, nil)
}

// Update carries out the plan of an in-place change (r.Planned).
func (p *Provider) Update(ctx context.Context, _ string, r provider.Resource) (provider.Object, error) {
	if err := ctx.Err(); err != nil {
		return provider.Object{}, fmt.Errorf("update %s %q: %w", r.Type, r.Name, err)
	}
	prior := map[string]any{}
	switch {
	case r.Planned != nil && r.Planned.PriorValues != nil:
		prior = r.Planned.PriorValues
	case r.Planned != nil && len(r.Planned.PriorState) > 0:
		// A plan read back (the engine's, a saved one) keeps the prior
		// object as the state it encoded.
		v, err := value.ParseJSON(r.Planned.PriorState)
		m, ok := v.(map[string]any)
		if err != nil || !ok {
			return provider.Object{}, fmt.Errorf("update %s %q: the plan's prior state does not decode: plan again", r.Type, r.Name)
		}
		prior = m
	case r.Stored != nil:
		prior = withoutNulls(r.Stored.Attributes)
	}
	return p.apply(r, prior)
}

// apply is OpenTofu's ApplyResourceChange of a planned create (prior
// nil) or update: the planned values, output unknown made input, id
// unknown made a new ID. A plan made while the configuration held
// unknown values is made again with the values now known, and refused
// when it contradicts a value the reviewed plan knew.
func (p *Provider) apply(r provider.Resource, prior map[string]any) (provider.Object, error) {
	if err := checkType(r.Type); err != nil {
		return provider.Object{}, err
	}
	if r.Planned == nil {
		return provider.Object{}, fmt.Errorf("%s %q: no plan of the built-in provider for it: plan again", r.Type, r.Name)
	}
	planned := r.Planned.Values
	if !r.Planned.ConfigKnown {
		cfg := configured(r.Properties, nil, nil)
		again := planCreate(cfg)
		if prior != nil {
			again = planUpdate(prior, cfg)
		}
		for _, name := range attrs {
			if was, ok := planned[name]; ok && !value.HasUnknown(was) && !value.Equal(was, again[name]) {
				return provider.Object{}, fmt.Errorf("the built-in provider planned %s %q differently at apply than the reviewed plan (%s differs): nothing was changed; plan again", r.Type, r.Name, name)
			}
		}
		planned = again
	}
	state := maps.Clone(planned)
	if value.HasUnknown(state["output"]) {
		if in, ok := state["input"]; ok && in != nil {
			state["output"] = in
		} else {
			delete(state, "output")
		}
	}
	if value.HasUnknown(state["id"]) {
		id, err := p.newID()
		if err != nil {
			return provider.Object{}, fmt.Errorf("%s %q: %w", r.Type, r.Name, err)
		}
		state["id"] = id
	}
	if value.HasUnknown(state) {
		return provider.Object{}, fmt.Errorf("%s %q: a value is still unknown at apply: plan again", r.Type, r.Name)
	}
	return object(state), nil
}

// ReadStored reads an object from what state keeps of it, as OpenTofu's
// UpgradeResourceState and ReadResource do: as it is.
func (p *Provider) ReadStored(_ context.Context, typ, id string, s provider.Stored) (provider.Object, error) {
	if err := checkType(typ); err != nil {
		return provider.Object{}, err
	}
	state := withoutNulls(s.Attributes)
	if state == nil {
		return provider.Object{}, provider.NotFound(typ + " " + id)
	}
	obj := object(state)
	obj.Stored.Private = s.Private
	if obj.ID == "" {
		obj.ID = id
	}
	return obj, nil
}

// Import is OpenTofu's import of terraform_data: an object whose id is
// the ID given, every other attribute null (nothing else can be known
// from an ID); its plan then sets input and triggers_replace from the
// configuration.
func (p *Provider) Import(_ context.Context, typ, id string) (provider.Object, error) {
	if err := checkType(typ); err != nil {
		return provider.Object{}, err
	}
	return object(map[string]any{"id": id}), nil
}

// object is the Object of state: its id the provider ID, its attributes
// properties, outputs and what state keeps.
func object(state map[string]any) provider.Object {
	id, _ := state["id"].(string)
	return provider.Object{
		ID: id, Properties: state, Outputs: state,
		Stored: &provider.Stored{Attributes: state},
	}
}

// withoutNulls is attrs without null attributes (a state may write them);
// nil stays nil. (OpenTofu's state form of values of any type, {"value":
// …, "type": …}, is undone by the state bridge, package tfstate.)
func withoutNulls(attrs map[string]any) map[string]any {
	if attrs == nil {
		return nil
	}
	out := make(map[string]any, len(attrs))
	for k, v := range attrs {
		if v != nil {
			out[k] = v
		}
	}
	return out
}
