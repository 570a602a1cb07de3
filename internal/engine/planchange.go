package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/diff"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

// One planning path: every resource, of Kyku's types or a Terraform
// provider's, changed or not, is planned by its provider (PlanChange)
// from the object as discovery read it (or an import found it) to its
// configuration. The answer decides: its planned values against the
// prior ones are the property changes (unknown ones "known after
// apply"), a forced replace (or --replace) makes a replace, no difference
// a no-op. For a type whose provider keeps its own state, the provider's
// plan travels in plan.Change.Planned to apply, which hands it back
// exactly, and references read its planned values.

// changeInput is one resource to plan.
type changeInput struct {
	r       *config.Resource
	props   map[string]any   // resolved
	prior   *provider.Object // as discovery read (or an import found) it; nil: a create
	applied map[string]any   // what state says was last applied; nil for a create or an import
	extra   []string         // top-level properties sensitive through what they reference
	replace bool             // replace it whatever changed (--replace)
	was     []string         // what was secret when last applied (state)
	// wasWithin, for a property of was secret only in parts, the paths
	// of those parts (state.Resource.SensitiveWithin).
	wasWithin map[string][]string
	prefix    string // deploy prefix
}

// askPlanChange makes the PlanChange call for r (with the engine's
// retries) and adds what the provider refuses to diags at r's positions;
// the caller names the change in a failed call's error.
func (e *Engine) askPlanChange(ctx context.Context, diags *diag.Diagnostics, r *config.Resource, req provider.ChangeRequest) (provider.ChangePlan, error) {
	var res provider.ChangePlan
	err := e.call(ctx, nil, func(ctx context.Context) error {
		var err error
		res, err = e.provider.PlanChange(ctx, req)
		return err
	})
	if err != nil {
		return res, err
	}
	for _, ref := range res.Refusals {
		ref.Resource = r.Name
		addRefusal(diags, r, ref)
	}
	return res, nil
}

// planOne plans ch (its action set to Import, to Replace for a change of
// type, or to be decided) with the provider. It returns what the provider
// says forces a replace and what the change masks.
func (e *Engine) planOne(ctx context.Context, diags *diag.Diagnostics, ch *plan.Change, in changeInput) ([]provider.Forced, []string, error) {
	req := provider.ChangeRequest{
		Resource:      provider.Resource{Name: in.r.Name, Type: in.r.Type, CloudName: ch.CloudName, Prefix: in.prefix, Properties: in.props},
		IgnoreChanges: in.r.IgnoreChanges,
	}
	if in.prior != nil {
		req.ID, req.Stored, req.Prior, req.Applied = ch.ProviderID, in.prior.Stored, in.prior.Properties, in.applied
		req.Replace = in.replace
	}
	res, err := e.askPlanChange(ctx, diags, in.r, req)
	if err != nil {
		return nil, nil, fmt.Errorf("plan %s %q with %s: %w", in.r.Type, in.r.Name, e.provider.Schema(in.r.Type).Provider, err)
	}
	pp := res.Planned
	if pp == nil {
		if len(res.Refusals) > 0 {
			return nil, nil, nil // refused: the diagnostics say why
		}
		return nil, nil, fmt.Errorf("plan %s %q: provider %s answered with no plan", in.r.Type, in.r.Name, e.provider.Schema(in.r.Type).Provider)
	}
	own := e.ownState(in.r.Type)
	ch.Sensitive = sortedSet(slices.Concat(in.r.SensitiveProps(), in.r.Sensitive, pp.Sensitive, in.extra))
	mask := sortedSet(slices.Concat(ch.Sensitive, in.was, schemaSensitive(in.r.Type)))
	ch.SensitiveWithin = secretWithin(in.r, in.was, in.wasWithin, pp.Sensitive, in.extra, schemaSensitive(in.r.Type), unordered(in.r.Type))
	ch.SecretParts = secretWithin(in.r, nil, nil, pp.Sensitive, in.extra, schemaSensitive(in.r.Type), unordered(in.r.Type))
	var priorVals map[string]any
	if in.prior != nil {
		priorVals = pp.PriorValues
		if priorVals == nil {
			priorVals = map[string]any{}
		}
	}
	mask = sortedSet(slices.Concat(mask, echoes(mask, ch.SensitiveWithin, priorVals, pp.Values)))
	ch.Properties = diff.Values(priorVals, pp.Values, mask)
	if own {
		ch.Planned = &plan.Planned{
			PriorState: pp.PriorState, PriorPrivate: pp.PriorPrivate, State: pp.State, Private: pp.Private,
			SchemaVersion: pp.SchemaVersion, ConfigKnown: pp.ConfigKnown, Sensitive: mask, Values: pp.Values,
		}
	}
	decide(ch, res, req.Replace, in.prior == nil)
	if ch.Action != plan.NoOp {
		ch.References = references(in.r.Properties, in.props, pp.Values, mask)
	}
	unchanged := in.prior != nil && len(res.Replace) == 0 && !req.Replace && len(ch.Properties) == 0
	if unchanged && own && in.prior.Stored != nil {
		// Nothing to change: the plan keeps what the read found (apply
		// records it), not a plan of a change.
		st := in.prior.Stored
		ch.Planned = &plan.Planned{SchemaVersion: st.SchemaVersion, Private: st.Private, Sensitive: mask, Values: pp.Values}
	}
	return res.Replace, mask, nil
}

// decide sets ch's action from the provider's answer: a create (or the
// replace a change of type is), a replace where something forces one or
// one is asked for, an update where a property changes, else a no-op; an
// import stays one. The replace's order is asked for where the provider
// wants create-before-destroy (orderReplaces decides).
func decide(ch *plan.Change, res provider.ChangePlan, replace, create bool) {
	switch {
	case create:
		if ch.Action != plan.Replace {
			ch.Action = plan.Create
		}
	case len(res.Replace) > 0 || replace:
		markForced(ch, res.Replace)
		if replace && ch.Reason == "" { // asked for: the reason, whatever else forces it (as OpenTofu's -replace)
			ch.Reason = replaceRequested
		}
		ch.Action = plan.Replace
	case len(ch.Properties) > 0:
		if ch.Action != plan.Import {
			ch.Action = plan.Update
		}
	default:
		if ch.Action != plan.Import {
			ch.Action = plan.NoOp
		}
	}
	if res.CreateBeforeDestroy && ch.Action != plan.Create {
		ch.ReplaceOrder = plan.CreateBeforeDestroy
	}
}

// markForced marks the property changes under each forced path (and says
// why on the change when none shows it).
func markForced(ch *plan.Change, forced []provider.Forced) {
	for _, f := range forced {
		marked := false
		for i := range ch.Properties {
			pc := &ch.Properties[i]
			if f.Path == "" || pc.Path == f.Path || strings.HasPrefix(pc.Path, f.Path+".") || strings.HasPrefix(pc.Path, f.Path+"[") {
				marked = true
				if !pc.ForcesReplace {
					pc.ForcesReplace, pc.ReplaceReason = true, f.Reason
				}
			}
		}
		if !marked && ch.Reason == "" && f.Reason != "" {
			ch.Reason = f.Reason
		}
	}
}

// planResource is the change of a resource: an import (planned against
// the object it found), a create (nothing in state, or gone from the
// cloud), a replace of another type, or the object discovery read,
// planned against.
func (x *planning) planResource(ctx context.Context, diags *diag.Diagnostics, ch *plan.Change, in changeInput) error {
	r, e := in.r, x.e
	sr := x.st.Resources[r.Name]
	im, importing := x.imported[r.Name]
	switch {
	case importing:
		o := im.obj
		ch.Action = plan.Import
		ch.ProviderID, ch.CloudName = o.ID, o.CloudName
		in.prior, in.replace = &o, false // --replace of an import is refused (plan)
		paths, mask, err := e.planOne(ctx, diags, ch, in)
		if err != nil {
			return err
		}
		if ch.Action == plan.Replace {
			refuseImportReplace(diags, r, im.id, importForced(paths, o.Properties, in.props, mask))
		}
		ch.Action = plan.Import
		return nil
	case sr == nil || sr.ProviderID == "":
		ch.CloudName = cloudName(in.prefix, r.Name)
	case x.gone[r.Name]:
		ch.CloudName, ch.Reason = sr.CloudName, "gone from the cloud"
	case sr.Type != r.Type:
		ch.Action = plan.Replace
		ch.ProviderID, ch.CloudName = sr.ProviderID, sr.CloudName
		ch.Reason = fmt.Sprintf("type changed from %s to %s", sr.Type, r.Type)
		ch.PriorType = sr.Type
	default:
		ch.ProviderID, ch.CloudName = sr.ProviderID, sr.CloudName
		obj, found := x.objs[r.Name]
		if !found {
			return fmt.Errorf("%s %q (id %s): not read from the cloud", r.Type, r.Name, sr.ProviderID)
		}
		if e.ownState(r.Type) {
			if obj.ID != "" {
				ch.ProviderID = obj.ID
			}
		} else {
			adoptObject(ch, sr, obj, found)
		}
		in.prior, in.applied = &obj, sr.Config
		ch.PriorDigests = attrDigests(obj) // apply compares the object with it just before changing it
		if _, _, err := e.planOne(ctx, diags, ch, in); err != nil {
			return err
		}
		if ch.Action == plan.NoOp && obj.Outputs != nil && !value.Equal(obj.Outputs, sr.Outputs) {
			ch.Outputs = obj.Outputs
		}
		return nil
	}
	_, _, err := e.planOne(ctx, diags, ch, in)
	return err
}
