package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/diff"
	"github.com/kyku/action/internal/graph"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// Providers that plan every change themselves (a Terraform provider's
// types, provider.SelfPlanner): the engine has no schema of theirs and no
// replace rules. It asks the provider about every such resource, changed
// or not (ChangePlanner with the object as discovery read it), and the
// answer decides: its planned values against the prior ones are the
// property changes (computed attributes included, unknown ones "known
// after apply"), a forced replace makes a replace, no difference a no-op.
// The provider's plan travels in plan.Change.Planned to apply, which hands
// it back exactly. References to such a resource read its planned values,
// so a value known at plan is known to its dependents; a reference to an
// attribute the provider's schema marks sensitive makes the property
// holding it sensitive.

// selfPlanned reports whether typ is planned by its provider alone.
func (e *Engine) selfPlanned(typ string) bool {
	sp, ok := e.provider.(provider.SelfPlanner)
	return ok && sp.SelfPlanned(typ)
}

// storedOf is what state keeps of sr for its provider.
func storedOf(sr *state.Resource) provider.Stored {
	return provider.Stored{SchemaVersion: sr.SchemaVersion, Private: sr.Private, Attributes: sr.Outputs}
}

// selfInput is one self-planned resource to plan.
type selfInput struct {
	r       *config.Resource
	props   map[string]any   // resolved
	prior   *provider.Object // as discovery read (or an import found) it; nil: a create
	extra   []string         // top-level properties sensitive through what they reference
	replace bool             // replace it whatever changed (--replace)
	was     []string         // what was secret when last applied (state)
	prefix  string           // deploy prefix
}

// planSelf plans ch (its action set to Create, or to be decided when
// in.prior is set) with the provider alone. It returns what the provider
// says forces a replace (its RequiresReplace whose values change).
func (e *Engine) planSelf(ctx context.Context, diags *diag.Diagnostics, ch *plan.Change, in selfInput) ([]provider.Forced, error) {
	cp, ok := e.provider.(provider.ChangePlanner)
	if !ok {
		return nil, fmt.Errorf("%s %q: provider %s does not plan its changes", in.r.Type, in.r.Name, e.provider.Name())
	}
	props := in.props
	req := provider.ChangeRequest{
		Resource: provider.Resource{Name: in.r.Name, Type: in.r.Type, CloudName: ch.CloudName, Prefix: in.prefix, Properties: props},
	}
	if in.prior != nil {
		req.ID, req.Stored, req.Prior = in.prior.ID, in.prior.Stored, in.prior.Properties
		if len(in.r.IgnoreChanges) > 0 {
			// As Terraform's ignore_changes: the prior value stands in for
			// the configured one.
			props = maps.Clone(props)
			for _, name := range in.r.IgnoreChanges {
				if v, ok := in.prior.Properties[name]; ok {
					props[name] = v
				} else {
					delete(props, name)
				}
			}
			req.Properties = props
		}
	}
	req.Changed = slices.Sorted(maps.Keys(props))
	req.Replace = in.replace && in.prior != nil
	res, err := e.askPlanChange(ctx, diags, cp, in.r, req)
	if err != nil {
		return nil, fmt.Errorf("plan %s %q: %w", in.r.Type, in.r.Name, err)
	}
	if len(res.Refusals) > 0 {
		return nil, nil
	}
	pp := res.Planned
	if pp == nil {
		return nil, fmt.Errorf("plan %s %q: provider %s answered with no plan", in.r.Type, in.r.Name, e.provider.Name())
	}
	ch.Sensitive = sortedSet(slices.Concat(pp.Sensitive, in.r.Sensitive, in.extra))
	sensitive := slices.Concat(ch.Sensitive, in.was)
	var priorVals map[string]any
	if in.prior != nil {
		priorVals = pp.PriorValues
		if priorVals == nil {
			priorVals = map[string]any{}
		}
	}
	ch.Properties = diff.Values(priorVals, pp.Values, sensitive)
	ch.Planned = &plan.Planned{
		PriorState: pp.PriorState, PriorPrivate: pp.PriorPrivate, State: pp.State, Private: pp.Private,
		SchemaVersion: pp.SchemaVersion, ConfigKnown: pp.ConfigKnown, Sensitive: sortedSet(sensitive), Values: pp.Values,
	}
	switch {
	case in.prior == nil:
		if ch.Action != plan.Replace { // a type change stays a replace
			ch.Action = plan.Create
		}
	case len(res.Replace) > 0 || req.Replace:
		markForced(ch, res.Replace)
		if req.Replace && ch.Reason == "" {
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
		// Nothing to change: the plan keeps what the read found (apply
		// records it), not a plan of a change.
		if st := in.prior.Stored; st != nil {
			ch.Planned = &plan.Planned{SchemaVersion: st.SchemaVersion, Private: st.Private, Sensitive: ch.Planned.Sensitive, Values: pp.Values}
		}
	}
	return res.Replace, nil
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

func sortedSet(names []string) []string {
	if len(names) == 0 {
		return nil
	}
	out := slices.Clone(names)
	slices.Sort(out)
	return slices.Compact(out)
}

// plannedValue is what a reference to a self-planned resource or a data
// source reads: an attribute (attr "" or "id": its ID) of vals; unknown
// (ok false) when the plan knows it only after apply.
func plannedValue(vals map[string]any, attr string) (any, bool) {
	if attr == "" {
		attr = "id"
	}
	v, ok := vals[attr]
	switch {
	case !ok:
		return nil, true // null: left out of the values (validation refused any attribute the schema lacks)
	case v == value.Unknown:
		return nil, false
	}
	return v, true
}

// refSensitive lists the top-level properties of props that reference a
// sensitive attribute: sensitive is, per resource, its sensitive
// top-level attributes.
func refSensitive(props map[string]any, sensitive map[string][]string) []string {
	if len(sensitive) == 0 {
		return nil
	}
	var out []string
	for name, v := range props {
		for _, ref := range value.Refs(v) {
			if s := sensitive[ref.Resource]; len(s) > 0 && (ref.Attr != "" && slices.Contains(s, ref.Attr)) {
				out = append(out, name)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// toProvider is the provider's form of a plan's Planned.
func toProvider(pp *plan.Planned) *provider.Planned {
	if pp == nil {
		return nil
	}
	return &provider.Planned{
		PriorState: pp.PriorState, PriorPrivate: pp.PriorPrivate, State: pp.State, Private: pp.Private,
		SchemaVersion: pp.SchemaVersion, ConfigKnown: pp.ConfigKnown, Sensitive: pp.Sensitive, Values: pp.Values,
	}
}

// recordStored copies what a provider keeps of obj into sr.
func recordStored(sr *state.Resource, obj provider.Object) {
	if obj.Stored == nil {
		return
	}
	sr.SchemaVersion, sr.Private = obj.Stored.SchemaVersion, obj.Stored.Private
}

// planSelfChange is the switch of plan for a self-planned resource: an
// import (im, planned against the object it read), a create (nothing in
// state, or gone from the cloud), a replace of another type, or the
// object discovery read, planned against.
func (e *Engine) planSelfChange(ctx context.Context, diags *diag.Diagnostics, ch *plan.Change, in selfInput, sr *state.Resource, im *importRead, objs map[string]provider.Object, gone map[string]bool) error {
	r := in.r
	switch {
	case im != nil:
		o := im.obj
		ch.Action = plan.Import
		ch.ProviderID, ch.CloudName = o.ID, o.CloudName
		in.prior = &o
		paths, err := e.planSelf(ctx, diags, ch, in)
		if err != nil {
			return err
		}
		if ch.Action == plan.Replace {
			refuseImportReplace(diags, r, im.id, importForced(paths, o.Properties, in.props, ch.Sensitive))
		}
		ch.Action = plan.Import
		return nil
	case sr == nil || sr.ProviderID == "":
		ch.CloudName = cloudName(in.prefix, r.Name)
	case gone[r.Name]:
		ch.CloudName, ch.Reason = sr.CloudName, "gone from the cloud"
	case sr.Type != r.Type:
		ch.Action = plan.Replace
		ch.ProviderID, ch.CloudName = sr.ProviderID, sr.CloudName
		ch.Reason = fmt.Sprintf("type changed from %s to %s", sr.Type, r.Type)
		ch.PriorType = sr.Type
	default:
		ch.ProviderID, ch.CloudName = sr.ProviderID, sr.CloudName
		obj, found := objs[r.Name]
		if !found {
			return fmt.Errorf("%s %q (id %s): not read from the cloud", r.Type, r.Name, sr.ProviderID)
		}
		if obj.ID != "" {
			ch.ProviderID = obj.ID
		}
		in.prior = &obj
		if _, err := e.planSelf(ctx, diags, ch, in); err != nil {
			return err
		}
		if ch.Action == plan.NoOp && obj.Outputs != nil && !value.Equal(obj.Outputs, sr.Outputs) {
			ch.Outputs = obj.Outputs
		}
		return nil
	}
	_, err := e.planSelf(ctx, diags, ch, in)
	return err
}

// selfResult is one self-planned resource's change as planAhead made it.
type selfResult struct {
	ch    plan.Change
	diags diag.Diagnostics
	err   error
}

// planAhead plans, Parallelism at once, the self-planned resources of the
// level that starts at order[from]: they depend only on lower levels,
// already planned, so their references resolve now, and their providers
// are asked together (one call at a time each would leave the provider
// waiting on Kyku and Kyku on it). The plan's loop then takes their
// results in order, so the plan is the same whatever order the calls
// finish in.
func (e *Engine) planAhead(ctx context.Context, order []*config.Resource, levels []int, from int, keep func(string) bool,
	replace map[string]bool, lookup value.Lookup, sensitiveAttrs map[string][]string, st *state.File, objs map[string]provider.Object,
	gone map[string]bool, imported map[string]importRead, g *graph.Graph) map[string]*selfResult {
	var todo []*config.Resource
	for j := from; j < len(order) && levels[j] == levels[from]; j++ {
		if r := order[j]; !r.Data && keep(r.Name) && e.selfPlanned(r.Type) {
			todo = append(todo, r)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	out := make(map[string]*selfResult, len(todo))
	results := make([]selfResult, len(todo))
	for k, r := range todo {
		out[r.Name] = &results[k]
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(e.opts.Parallelism, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= len(todo) {
					return
				}
				r, res := todo[k], &results[k]
				desired, _, ok := resolveProps(&res.diags, r, lookup, secretIn(sensitiveAttrs))
				res.ch = plan.Change{ResourceID: r.Name, Type: r.Type, Level: levels[from], Dependencies: g.Deps(r.Name)}
				if !ok {
					continue
				}
				in := selfInput{r: r, props: desired, extra: refSensitive(r.Properties, sensitiveAttrs), prefix: st.Metadata.Prefix, replace: replace[r.Name]}
				if sr := st.Resources[r.Name]; sr != nil {
					in.was = sr.Sensitive
				}
				var im *importRead
				if read, ok := imported[r.Name]; ok {
					im = &read
				}
				res.err = e.planSelfChange(ctx, &res.diags, &res.ch, in, st.Resources[r.Name], im, objs, gone)
			}
		}()
	}
	wg.Wait()
	return out
}

// refuseSensitiveOutputs refuses the outputs that read a sensitive
// attribute of a provider's resource (its schema says so, or it holds a
// sensitive value: sensitive, by resource) unless they are declared sensitive
// ({ value: …, sensitive: true }), as Terraform refuses them: outputs are
// listed after apply, in the apply's comment and by kyku output, so one
// holding a secret must say so to be masked there.
func refuseSensitiveOutputs(diags *diag.Diagnostics, cfg *config.Config, sensitive map[string][]string) {
	for _, o := range cfg.Outputs {
		if o.Sensitive {
			continue
		}
		for _, ref := range value.Refs(o.Value) {
			if ref.Attr != "" && slices.Contains(sensitive[ref.Resource], ref.Attr) {
				diags.Add(o.Pos, "output %q reads %s, which is sensitive (its provider's schema says so, or it holds a sensitive value): declare it sensitive to have it masked wherever outputs are shown (%s: { value: \"%s\", sensitive: true })",
					o.Name, ref.String(), o.Name, ref.String())
				break
			}
		}
	}
}
