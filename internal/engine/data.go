package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/diff"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

// Data sources (provider.DataSources) are read when they are planned, as
// OpenTofu reads them, unless their configuration refers to values not
// yet known, or they depend (a reference, or dependsOn) on a resource with
// changes pending: then they are read during apply, after what they
// depend on (a plan.Read change). The plan knows of such a data source
// what its configuration says (provider.DataSources.PlanData); what reads
// any other attribute of it sees a value known after apply, and is
// planned again at apply with what the read found, held to every value
// the reviewed plan knew.

// Why a data source is read during apply (plan.Change.Reason).
const (
	readConfigUnknown     = "will be read during apply: its configuration refers to values not yet known"
	readDependencyPending = "will be read during apply: it depends on a resource with changes pending"
	readCheckNested       = "will be read during apply: it belongs to a check block, whose assertions read it (read at plan too)"
	readCheckNestedFailed = "will be read during apply: it belongs to a check block, whose assertions read it (its read at plan failed: a warning)"
)

// readReason is why a data source is read during apply ("" when it is
// read now): its configuration is not wholly known (unknown), or one of
// deps has changes pending (pending: the resources planned so far whose
// change alters their object). Data sources among deps do not count: one
// read during apply makes what reads it unknown already, and depending on
// one read now changes nothing, as in OpenTofu.
func readReason(unknown bool, deps []string, pending map[string]bool) string {
	if unknown {
		return readConfigUnknown
	}
	for _, d := range deps {
		if pending[d] {
			return readDependencyPending
		}
	}
	return ""
}

// changesObject reports whether ch alters its object, so that a data
// source depending on it is read after it: a create, update or replace,
// an import that changes the object too, a move that renames it in the
// cloud. An import or a move alone leaves the object as it is (OpenTofu
// plans both as no-ops).
func changesObject(ch *plan.Change) bool {
	switch ch.Action {
	case plan.Create, plan.Update, plan.Replace:
		return true
	case plan.Import:
		return len(ch.Properties) > 0
	}
	return ch.MovedFrom != "" && ch.PriorCloudName != ""
}

// planData reads data source r (its configuration resolved: props) now,
// or, with a reason (readReason), asks its provider what the plan knows
// of it before it is read during apply. Its values are what references to
// it read (p.Data). ok is false when diags say why it cannot be.
func (e *Engine) planData(ctx context.Context, diags *diag.Diagnostics, r *config.Resource, props map[string]any, reason string, p *plan.Plan) (sensitive []string, ok bool, err error) {
	var vals map[string]any
	err = e.call(ctx, nil, func(ctx context.Context) error {
		var err error
		if reason != "" {
			vals, sensitive, err = e.provider.PlanData(ctx, r.Type, props)
		} else {
			vals, sensitive, err = e.provider.ReadData(ctx, r.Type, props)
		}
		return err
	})
	switch {
	case errors.Is(err, provider.ErrNotSupported):
		diags.Add(r.Pos, "data source %s: provider %s has no data sources", value.QuoteName(r.Name), e.provider.Name())
		return nil, false, nil
	case err != nil:
		if ctx.Err() != nil {
			return nil, false, err
		}
		diags.Add(r.Pos, "data source %s (%s): %v", value.QuoteName(r.Name), r.Type, err)
		return nil, false, nil
	}
	if p.Data == nil {
		p.Data = map[string]map[string]any{}
	}
	p.Data[r.Name] = vals
	return sensitive, true, nil
}

// readChange is the change that reads data source r during apply, for
// reason: what the plan knows of its attributes (vals), sensitive ones
// masked.
func readChange(r *config.Resource, level int, deps []string, reason string, vals map[string]any, sensitive []string) plan.Change {
	return plan.Change{
		Action: plan.Read, ResourceID: r.Name, Type: r.Type, Level: level, Dependencies: deps, Reason: reason,
		Properties: diff.Values(nil, vals, sensitive), Sensitive: sensitive,
	}
}

// read is the task that reads the data source of change ci during apply;
// what depends on it starts once its values are in x.data.
func (x *execution) read(ci int) func(context.Context) (func(context.Context) error, error) {
	return func(ctx context.Context) (func(context.Context) error, error) {
		c := &x.p.Changes[ci]
		x.event(ci, progress.Started, nil)
		vals, err := x.doRead(ctx, c)
		if err != nil && ctx.Err() == nil && x.checkNested(c.ResourceID) {
			// A check block's data source that fails to read warns, as
			// OpenTofu warns: its assertions are unknown, the apply goes on.
			x.mu.Lock()
			x.warnings = append(x.warnings, checkReadWarning(x.p.Config.Resource(c.ResourceID), err))
			x.mu.Unlock()
			x.event(ci, progress.Done, nil)
			return nil, nil
		}
		if err != nil {
			x.event(ci, progress.Failed, err)
			return nil, err
		}
		x.mu.Lock()
		x.data[c.ResourceID] = vals
		x.mu.Unlock()
		x.event(ci, progress.Done, nil)
		return nil, nil
	}
}

// checkNested says data source name belongs to a check block.
func (x *execution) checkNested(name string) bool {
	r := x.p.Config.Resource(name)
	return r != nil && r.CheckNested
}

// checkReadWarning is the warning a check block's data source r that
// failed to read with err gives ("file:line:col: …").
func checkReadWarning(r *config.Resource, err error) string {
	var ds diag.Diagnostics
	if errors.As(err, &ds) {
		return ds.Error()
	}
	d := diag.Diagnostics{}
	d.Add(r.Pos, "data source %s (%s): %v", value.QuoteName(r.Name), r.Type, err)
	return d.Error()
}

// doRead reads the data source of c with its configuration resolved now:
// the values the read found where the plan knew none (known after
// apply), the plan's where it knew them. Those are its configuration,
// which a provider may read back normalised (an empty string as null):
// what read them at plan was planned with them, and keeps them.
func (x *execution) doRead(ctx context.Context, c *plan.Change) (map[string]any, error) {
	cr := x.p.Config.Resource(c.ResourceID)
	if cr == nil || !cr.Data {
		return nil, fmt.Errorf("data source %s is not in the plan's config", value.QuoteName(c.ResourceID))
	}
	resolved, unknown, err := value.ResolveChecked(cr.Properties, x.lookup)
	if err != nil {
		return nil, fmt.Errorf("data source %s (%s): %w", value.QuoteName(c.ResourceID), c.Type, refErr(err, secretIn(x.p.SensitiveAttributes())))
	}
	if unknown {
		return nil, fmt.Errorf("data source %s (%s): its configuration still refers to values not known", value.QuoteName(c.ResourceID), c.Type)
	}
	ev := &progress.Event{Action: c.Action, Type: c.Type, Name: c.ResourceID}
	var vals map[string]any
	err = x.e.call(ctx, ev, func(ctx context.Context) error {
		var err error
		vals, _, err = x.e.provider.ReadData(ctx, c.Type, resolved.(map[string]any))
		return err
	})
	switch {
	case errors.Is(err, provider.ErrNotSupported):
		return nil, fmt.Errorf("data source %s: provider %s has no data sources", value.QuoteName(c.ResourceID), x.e.provider.Name())
	case err != nil:
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(vals)) {
		if value.HasUnknown(vals[name]) {
			return nil, fmt.Errorf("data source %s (%s): its provider's read left %s unknown (a bug in the provider)", value.QuoteName(c.ResourceID), c.Type, name)
		}
	}
	// What the plan knew stays what it was: the plan is a promise.
	out := maps.Clone(vals)
	if out == nil {
		out = map[string]any{}
	}
	for name, pv := range x.p.Data[c.ResourceID] {
		if !value.HasUnknown(pv) {
			out[name] = pv
		}
	}
	return out, nil
}
