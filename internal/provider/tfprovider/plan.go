package tfprovider

import (
	"context"
	"errors"
	"fmt"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/noun"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfschema"
	"github.com/kyku/action/internal/value"
)

// PlanChange plans one resource as Terraform does: the configuration
// (references resolved, value.Unknown where not yet known) against its
// prior state as discovery read it (req.Stored; none for a create), the
// proposed new state (tfschema.ProposedNew), PlanResourceChange. A path of
// its RequiresReplace whose value changes forces a replace, and the new
// object is then planned as a create. The provider's error diagnostics
// are refusals, at their paths. A replace asked for (req.Replace) is
// planned the same way, as Terraform's -replace. As Terraform's
// ignore_changes, the object's value of a property in req.IgnoreChanges
// stands in for the configured one.
func (p *Provider) PlanChange(ctx context.Context, req provider.ChangeRequest) (provider.ChangePlan, error) {
	pl, rs, release, err := p.resourceSchema(ctx, req.Type, false)
	if err != nil {
		return provider.ChangePlan{}, err
	}
	defer release()
	block, ty := rs.Block, rs.Block.ImpliedType()
	cfg, ds, err := configure(block, ignoring(req))
	if err != nil {
		return provider.ChangePlan{}, fmt.Errorf("plan %s %q: %w", req.Type, req.Name, err)
	}
	p.learnConfig(&cfg)
	if ds.HasErrors() {
		return provider.ChangePlan{Refusals: refusals(req.Name, ds)}, nil
	}
	prior, priorPrivate := cty.NullVal(ty), []byte(nil)
	if req.Stored != nil {
		if prior, err = p.storedValue(ctx, pl, req.Type, rs, req.Stored); err != nil {
			return provider.ChangePlan{}, err
		}
		priorPrivate = req.Stored.Private
		p.learn(block, prior)
	}
	resp, err := pl.PlanResourceChange(ctx, planRequest(req.Type, prior, priorPrivate, &cfg))
	if err != nil {
		return provider.ChangePlan{}, fmt.Errorf("plan %s %q: %w", req.Type, req.Name, err)
	}
	if resp.Diagnostics.HasErrors() {
		return provider.ChangePlan{Refusals: refusals(req.Name, resp.Diagnostics)}, nil
	}
	values, err := p.plannedValues(block, resp, req.Type, req.Name)
	if err != nil {
		return provider.ChangePlan{}, err
	}
	out := provider.ChangePlan{}
	if !prior.IsNull() {
		for _, path := range resp.RequiresReplace {
			// A write-only attribute is null before and after: the
			// provider's word alone replaces (as OpenTofu has it).
			if changedAt(prior, resp.PlannedState, path) || block.WriteOnlyAt(path) {
				out.Replace = append(out.Replace, provider.Forced{Path: kykuPath(path)})
			}
		}
	}
	if len(out.Replace) > 0 || (req.Replace && !prior.IsNull()) {
		// A replace (forced by a change, or asked for): the new object is
		// planned as a create, and that plan is what the change shows and
		// the create applies. It is made from the whole configuration:
		// ignore_changes keeps an object's values, and this is a new one
		// (as OpenTofu plans it).
		if len(req.IgnoreChanges) > 0 {
			if cfg, ds, err = configure(block, req.Properties); err != nil {
				return provider.ChangePlan{}, fmt.Errorf("plan %s %q: %w", req.Type, req.Name, err)
			}
			p.learnConfig(&cfg)
			if ds.HasErrors() {
				return provider.ChangePlan{Refusals: refusals(req.Name, ds)}, nil
			}
		}
		if resp, err = pl.PlanResourceChange(ctx, planRequest(req.Type, cty.NullVal(ty), nil, &cfg)); err != nil {
			return provider.ChangePlan{}, fmt.Errorf("plan %s %q (its replacement): %w", req.Type, req.Name, err)
		}
		if resp.Diagnostics.HasErrors() {
			return provider.ChangePlan{Refusals: refusals(req.Name, resp.Diagnostics)}, nil
		}
		if values, err = p.plannedValues(block, resp, req.Type, req.Name); err != nil {
			return provider.ChangePlan{}, err
		}
	}
	planned := &provider.Planned{
		Values: values, Sensitive: block.SensitiveNames(),
		State: resp.PlannedMsgpack, Private: resp.PlannedPrivate, SchemaVersion: rs.Version,
		ConfigKnown: cfg.Known,
	}
	if planned.Values == nil {
		planned.Values = map[string]any{}
	}
	if !prior.IsNull() {
		planned.PriorValues = tfschema.FromCtyObject(prior)
		if planned.PriorState, err = tfplugin.AppendMsgpack(nil, prior, ty); err != nil {
			return provider.ChangePlan{}, fmt.Errorf("plan %s %q: encode its prior state: %w", req.Type, req.Name, err)
		}
		planned.PriorPrivate = priorPrivate
	}
	out.Planned = planned
	return out, nil
}

// ignoring is req's properties with the object's value (req.Prior) in
// place of each property req.IgnoreChanges names, or of the part of it
// its path names (tags["Name"]: that entry alone, as OpenTofu ignores
// it); req.Properties itself for a create or when none is ignored.
func ignoring(req provider.ChangeRequest) map[string]any {
	if req.Prior == nil || len(req.IgnoreChanges) == 0 {
		return req.Properties
	}
	return value.KeepFrom(req.Properties, req.Prior, req.IgnoreChanges)
}

// changedAt reports whether the values of prior and planned at path
// differ (a path it cannot follow counts as changed).
func changedAt(prior, planned cty.Value, path cty.Path) bool {
	a, err1 := path.Apply(prior)
	b, err2 := path.Apply(planned)
	if err1 != nil || err2 != nil {
		return true
	}
	return !a.RawEquals(b)
}

// Create carries out the plan of a new object (r.Planned).
func (p *Provider) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	return p.apply(ctx, r, false)
}

// Update carries out the plan of an in-place change (r.Planned).
func (p *Provider) Update(ctx context.Context, _ string, r provider.Resource) (provider.Object, error) {
	return p.apply(ctx, r, true)
}

// apply sends the reviewed plan to ApplyResourceChange: its planned state
// and private data exactly as planned when the configuration was wholly
// known then; otherwise the change is planned again with the values now
// known (as Terraform does at apply), and a plan that contradicts a value
// the reviewed plan knew is refused. A failure after which the provider
// still reports an object is a *provider.PartialError carrying it.
func (p *Provider) apply(ctx context.Context, r provider.Resource, update bool) (_ provider.Object, err error) {
	// A create that fails before its request is sent, or that the
	// provider answers without an object, made none; one whose request
	// got no answer may have (provider.ErrNoObject).
	answered := true
	defer func() {
		if !update && madeNoObject(err, answered) {
			err = provider.NoObject(err)
		}
	}()
	if r.Planned == nil {
		return provider.Object{}, fmt.Errorf("%s %q: no plan of provider %s for it: plan again", r.Type, r.Name, p.cfg.Name)
	}
	pl, rs, release, err := p.leased(ctx, r.Type, false, !update && r.AnswerTo != "")
	if err != nil {
		return provider.Object{}, err
	}
	defer release()
	block, ty := rs.Block, rs.Block.ImpliedType()
	cfg, ds, err := configure(block, r.Properties)
	if err != nil {
		return provider.Object{}, fmt.Errorf("%s %q: %w", r.Type, r.Name, err)
	}
	p.learnConfig(&cfg)
	if ds.HasErrors() {
		return provider.Object{}, diagsError(fmt.Sprintf("%s %q", r.Type, r.Name), ds)
	}
	prior, priorPrivate := cty.NullVal(ty), []byte(nil)
	if update {
		if prior, err = tfplugin.UnmarshalMsgpack(r.Planned.PriorState, ty); err != nil {
			return provider.Object{}, fmt.Errorf("%s %q: decode the planned prior state: %w", r.Type, r.Name, err)
		}
		priorPrivate = r.Planned.PriorPrivate
	}
	// A create of the reviewed plan as it is, of a block without secrets:
	// its planned and new states are read as msgpack and values only
	// (applyValues). The plan must decode, as it must to be compared.
	values := !update && r.Planned.ConfigKnown && !block.HasSecrets()
	var reviewed cty.Value
	if values {
		err = tfplugin.CheckValues(r.Planned.State, ty)
	} else {
		reviewed, err = tfplugin.UnmarshalMsgpack(r.Planned.State, ty)
	}
	if err != nil {
		return provider.Object{}, fmt.Errorf("%s %q: decode the planned state: %w", r.Type, r.Name, err)
	}
	req := tfplugin.ApplyRequest{TypeName: r.Type, PriorState: prior, ConfigMsgpack: cfg.Msgpack, Values: values}
	if !update {
		req.AnswerTo, req.Note, req.Address = r.AnswerTo, r.AnswerNote, r.Name
	}
	if r.Planned.ConfigKnown {
		req.PlannedMsgpack, req.PlannedPrivate = r.Planned.State, r.Planned.Private
	} else {
		again := planRequest(r.Type, prior, priorPrivate, &cfg)
		again.Values = false // compared with the reviewed plan below
		resp, err := pl.PlanResourceChange(ctx, again)
		if err != nil {
			return provider.Object{}, fmt.Errorf("plan %s %q again with the values now known: %w", r.Type, r.Name, err)
		}
		if err := diagsError(fmt.Sprintf("plan %s %q again with the values now known", r.Type, r.Name), resp.Diagnostics); err != nil {
			return provider.Object{}, err
		}
		if err := p.plannedOK(block, resp.PlannedState, r.Type, r.Name); err != nil {
			return provider.Object{}, err
		}
		if err := compatible(nil, reviewed, resp.PlannedState); err != nil {
			return provider.Object{}, fmt.Errorf("provider %s planned %s %q differently at apply than the reviewed plan (%w): nothing was changed; plan again", p.cfg.Name, r.Type, r.Name, err)
		}
		if update {
			for _, path := range resp.RequiresReplace {
				if changedAt(prior, resp.PlannedState, path) {
					return provider.Object{}, fmt.Errorf("provider %s now requires %s %q to be replaced (%s), which the reviewed plan updates in place: nothing was changed; plan again", p.cfg.Name, r.Type, r.Name, kykuPath(path))
				}
			}
		}
		reviewed = resp.PlannedState
		req.PlannedMsgpack, req.PlannedPrivate = resp.PlannedMsgpack, resp.PlannedPrivate
	}
	answered = false
	ar, err := pl.ApplyResourceChange(ctx, req)
	if err != nil {
		return provider.Object{}, err
	}
	answered = true
	if ar.NewState == cty.NilVal { // asked for values, and the answer is an object in msgpack
		return p.appliedValues(r, rs, ar)
	}
	if values {
		if reviewed, err = tfplugin.UnmarshalMsgpack(r.Planned.State, ty); err != nil {
			return provider.Object{}, fmt.Errorf("%s %q: decode the planned state: %w", r.Type, r.Name, err)
		}
	}
	p.learn(block, ar.NewState)
	if err := p.writeOnlyAnswered(block, ar.NewState, func() string {
		return fmt.Sprintf("the %s of %s %q", map[bool]string{true: "update", false: "create"}[update], r.Type, r.Name)
	}); err != nil {
		// The object exists: state keeps it, without what the provider
		// should not have answered.
		return provider.Object{}, &provider.PartialError{Object: objectOf(block.NullWriteOnly(ar.NewState), ar.Private, rs, r.CloudName), Err: err}
	}
	obj := objectOf(ar.NewState, ar.Private, rs, r.CloudName)
	if err := diagsError("provider "+p.cfg.Name, ar.Diagnostics); err != nil {
		if !ar.NewState.IsNull() { // the object exists: state keeps it
			return provider.Object{}, &provider.PartialError{Object: obj, Err: err}
		}
		return provider.Object{}, err
	}
	if ar.NewState.IsNull() {
		return provider.Object{}, fmt.Errorf("provider %s answered the %s of %s %q with no object", p.cfg.Name, map[bool]string{true: "update", false: "create"}[update], r.Type, r.Name)
	}
	if !ar.LegacyTypeSystem {
		if err := compatible(nil, reviewed, ar.NewState); err != nil {
			return provider.Object{}, &provider.PartialError{Object: obj, Err: fmt.Errorf("provider %s produced an object that differs from its plan (%w): a bug in the provider; state records what it produced", p.cfg.Name, err)}
		}
	}
	return obj, nil
}

// appliedValues is the end of apply for a create answered as values
// (values there): what the rest of apply does with the new state's cty
// value, on its values and msgpack. Its block holds no secret to learn
// or write-only value to refuse; the new state is an object. It is held
// to the reviewed plan at the bytes (tfplugin.PlanKept), and, where they
// do not tell, by compatible on both values decoded.
func (p *Provider) appliedValues(r provider.Resource, rs *tfschema.Schema, ar tfplugin.ApplyResponse) (provider.Object, error) {
	ty := rs.Block.ImpliedType()
	obj := objectWith(ar.NewValues, encodedState{msgpack: ar.NewMsgpack, ty: ty}, ar.Private, rs, r.CloudName)
	if err := diagsError("provider "+p.cfg.Name, ar.Diagnostics); err != nil {
		return provider.Object{}, &provider.PartialError{Object: obj, Err: err} // the object exists: state keeps it
	}
	if ar.LegacyTypeSystem || tfplugin.PlanKept(r.Planned.State, ar.NewMsgpack, ty) {
		return obj, nil
	}
	// Both decoded as values already: they decode.
	reviewed, err1 := tfplugin.UnmarshalMsgpack(r.Planned.State, ty)
	got, err2 := tfplugin.UnmarshalMsgpack(ar.NewMsgpack, ty)
	if err := errors.Join(err1, err2); err != nil {
		return provider.Object{}, &provider.PartialError{Object: obj, Err: fmt.Errorf("%s %q: decode the planned and new states: %w", r.Type, r.Name, err)}
	}
	if err := compatible(nil, reviewed, got); err != nil {
		return provider.Object{}, &provider.PartialError{Object: obj, Err: fmt.Errorf("provider %s produced an object that differs from its plan (%w): a bug in the provider; state records what it produced", p.cfg.Name, err)}
	}
	return obj, nil
}

// compatible checks that got keeps every value planned knew: unknown
// parts of planned may be anything, known ones must be equal (as
// Terraform checks a provider's final plan and its result). The error
// names the first path that differs, never a value. Marks at any depth
// neither hide a difference nor make one: each level is unmarked as it is
// visited (a shallow Unmark of an unmarked value costs nothing, where
// UnmarkDeep of the whole object rebuilt it, 32 of 52 allocations per
// null_resource: BenchmarkCompatible); a set, compared whole, has its
// elements' marks on itself (cty.SetVal hoists them). compatible appends
// to path's array without copying it: a path is only ever formatted into
// an error's text, never kept.
func compatible(path cty.Path, planned, got cty.Value) error {
	planned, _ = planned.Unmark()
	got, _ = got.Unmark()
	if !planned.IsKnown() {
		return nil
	}
	where := func() string {
		if s := tfschema.PathString(path); s != "" {
			return s
		}
		return "the object"
	}
	if !got.IsKnown() {
		return fmt.Errorf("%s was planned known and is now unknown", where())
	}
	if planned.IsNull() != got.IsNull() {
		return fmt.Errorf("%s was planned %s", where(), map[bool]string{true: "null", false: "set"}[planned.IsNull()])
	}
	if planned.IsNull() {
		return nil
	}
	ty := planned.Type()
	switch {
	case ty.IsPrimitiveType():
		if !planned.RawEquals(got) {
			return fmt.Errorf("%s differs", where())
		}
	case ty.IsListType() || ty.IsTupleType() || ty.IsMapType() || ty.IsObjectType():
		if !got.CanIterateElements() {
			return fmt.Errorf("%s differs", where())
		}
		if (ty.IsListType() || ty.IsTupleType() || ty.IsMapType()) && planned.LengthInt() != got.LengthInt() {
			return fmt.Errorf("%s has %s, planned %d", where(), noun.Count(got.LengthInt(), "element"), planned.LengthInt())
		}
		for it := planned.ElementIterator(); it.Next(); {
			k, pv := it.Element()
			var step cty.PathStep = cty.IndexStep{Key: k}
			if ty.IsObjectType() {
				step = cty.GetAttrStep{Name: k.AsString()}
			}
			p := append(path, step)
			gv, err := step.Apply(got)
			if err != nil {
				return fmt.Errorf("%s is missing", tfschema.PathString(p))
			}
			if err := compatible(p, pv, gv); err != nil {
				return err
			}
		}
	default: // a set (compared once wholly known), a capsule
		if ty.IsSetType() && !planned.IsWhollyKnown() {
			return nil
		}
		if !planned.RawEquals(got) {
			return fmt.Errorf("%s differs", where())
		}
	}
	return nil
}

// madeNoObject reports whether err, the failure of a create, certainly
// made no object: the provider answered (answered) without one, or the
// plugin client failed before the request was sent (tfplugin.ErrNotSent).
// A failure that carries the object (provider.PartialError) made one.
func madeNoObject(err error, answered bool) bool {
	var partial *provider.PartialError
	if err == nil || errors.As(err, &partial) {
		return false
	}
	return answered || errors.Is(err, tfplugin.ErrNotSent)
}
