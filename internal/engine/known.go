package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// Known is what is known of a configuration's resources before it is
// planned: their attributes in state, and the data sources read so far.
// A Terraform configuration's count and for_each read it (OpenTofu reads
// them at plan, from the values known then); the plan then refuses an
// expansion that read what it changes (config.Config.CountReads). Safe
// for concurrent use.
type Known struct {
	e  *Engine
	st *state.File

	mu     sync.Mutex
	data   map[string]map[string]any
	failed map[string]diag.Diagnostics // why a data source could not be read, by name
}

// Known reads the state (under the lock, writing nothing).
func (e *Engine) Known(ctx context.Context) (*Known, error) {
	st, err := e.ReadState(ctx)
	if err != nil {
		return nil, err
	}
	if st == nil {
		st = state.New("", "", e.opts.Env)
	}
	return &Known{e: e, st: st, data: map[string]map[string]any{}}, nil
}

// Lookup answers a reference from the data sources read and the state.
func (k *Known) Lookup(r value.Ref) (any, bool) {
	if r.Attr == value.ObjectType {
		return k.e.objectType(r.Resource)
	}
	k.mu.Lock()
	vals, ok := k.data[r.Resource]
	k.mu.Unlock()
	if ok {
		v, ok := plannedValue(vals, r.Attr)
		return k.e.withNulls(r, v, ok)
	}
	return k.e.stateRead(k.st, nil, r)
}

// ReadData reads every data source of cfg not read yet whose
// configuration Lookup knows wholly, and returns how many it read. A
// data source its provider cannot read now is left for the plan.
func (k *Known) ReadData(ctx context.Context, cfg *config.Config) (int, error) {
	k.e.learnAttrNames(ctx, cfg)
	n := 0
	for _, r := range cfg.Resources {
		k.mu.Lock()
		_, done := k.data[r.Name]
		k.mu.Unlock()
		if !r.Data || done {
			continue
		}
		props, unknown, err := value.ResolveChecked(r.Properties, k.Lookup)
		if err != nil || unknown {
			continue
		}
		var diags diag.Diagnostics
		p := &plan.Plan{}
		if _, ok, err := k.e.planData(ctx, &diags, r, props.(map[string]any), "", p); err != nil {
			return n, fmt.Errorf("read data source %s: %w", value.QuoteName(r.Name), err)
		} else if !ok {
			k.mu.Lock()
			if k.failed == nil {
				k.failed = map[string]diag.Diagnostics{}
			}
			k.failed[r.Name] = diags
			k.mu.Unlock()
			continue
		}
		k.mu.Lock()
		k.data[r.Name] = p.Data[r.Name]
		delete(k.failed, r.Name)
		k.mu.Unlock()
		n++
	}
	return n, nil
}

// Failures are why the data sources ReadData could not read failed, each
// at its data source: a count or for_each reading one stays unknown, and
// is refused for it (the plan reads them again, and may read later one
// that waits for what apply makes).
func (k *Known) Failures() diag.Diagnostics {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out diag.Diagnostics
	for _, ds := range k.failed {
		out = append(out, ds...)
	}
	out.Sort()
	return out
}

// refuseChangedCountReads refuses an expansion that read a value this
// plan changes: what count or for_each read (in state, or a data source
// read before planning) is not what apply will find.
func refuseChangedCountReads(diags *diag.Diagnostics, cfg *config.Config, changes []plan.Change) {
	if len(cfg.CountReads) == 0 {
		return
	}
	changed := map[string]plan.Action{}
	for _, c := range changes {
		switch c.Action {
		case plan.Create, plan.Update, plan.Replace, plan.Read:
			changed[c.ResourceID] = c.Action
		}
	}
	for _, cr := range cfg.CountReads {
		for _, read := range cr.Reads {
			if a, ok := changed[read]; ok {
				diags.Add(cr.Pos, "Invalid %s argument: The %q value of %s depends on %s, which this plan will %s, so its value cannot be determined until apply.\n\nTo work around this, use the --target option to first apply only the resources that the %s depends on, and then apply normally to converge.",
					cr.Arg, cr.Arg, cr.By, read, a, cr.Arg)
				break
			}
		}
	}
}

// Complete is cfg made whole (config.Config.Pending) with what is known
// before planning: the state, and the data sources read then. A whole
// configuration is returned as it is.
func (e *Engine) Complete(ctx context.Context, cfg *config.Config) (*config.Config, error) {
	return cfg.Complete(ctx, e.KnownReader)
}

// KnownReader is Known as config.Config.Complete takes it.
func (e *Engine) KnownReader(ctx context.Context) (config.Known, error) {
	k, err := e.Known(ctx)
	if err != nil {
		return nil, err
	}
	return k, nil
}

// errPartial refuses a configuration still partial (config.Config.Pending):
// planned as it is, the resources its count or for_each leave out would
// be destroyed.
var errPartial = errors.New("the configuration's count or for_each still waits for state and data sources: complete it first (Engine.Complete)")

// whole refuses cfg when it is partial.
func whole(cfg *config.Config) error {
	if cfg != nil && cfg.Pending != nil {
		return errPartial
	}
	return nil
}
