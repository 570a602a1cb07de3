package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/value"
)

// ApplyOptions tune one apply.
type ApplyOptions struct {
	// Confirm is called with the plan, under the lock, before anything
	// changes; returning false stops without changes. Nil approves.
	Confirm func(*plan.Plan) (bool, error)
}

// ChangeResult is the outcome of one change.
type ChangeResult struct {
	Action     plan.Action
	Type, Name string
	ProviderID string
	Err        error // failure, or the cause of a skip
}

// Result is the outcome of an apply or destroy.
type Result struct {
	Plan         *plan.Plan
	Applied      bool // changes were attempted
	Succeeded    []ChangeResult
	Failed       []ChangeResult
	Skipped      []ChangeResult
	Interrupted  bool
	SerialBefore int64
	SerialAfter  int64
	BackupKey    string
	Outputs      map[string]any
	Duration     time.Duration
}

// Err summarises a failed or interrupted apply, or returns nil.
func (r *Result) Err() error {
	switch {
	case len(r.Failed) > 0:
		return fmt.Errorf("apply failed: %d succeeded, %d failed, %d skipped: %s %q: %w",
			len(r.Succeeded), len(r.Failed), len(r.Skipped), r.Failed[0].Action, r.Failed[0].Name, r.Failed[0].Err)
	case r.Interrupted:
		return fmt.Errorf("apply interrupted: %d succeeded, %d not started", len(r.Succeeded), len(r.Skipped))
	}
	return nil
}

// ErrNotConfirmed is returned by Apply when Confirm declined.
var ErrNotConfirmed = errors.New("apply cancelled: plan not confirmed")

// Apply makes the cloud match cfg. With p nil it plans first (under the same
// lock); with a saved plan it applies exactly that plan's changes, refusing
// it (changing nothing) when the state's lineage or serial moved on, or, when
// cfg is given too, when cfg's hash differs. Cancelling ctx stops starting
// new changes; running ones finish, the state is saved and the lock released.
func (e *Engine) Apply(ctx context.Context, cfg *config.Config, opts ApplyOptions, p *plan.Plan) (*Result, error) {
	st, unlock, err := e.locked(ctx, "apply")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if p == nil {
		if cfg == nil {
			return nil, errors.New("apply: need a config or a saved plan")
		}
		if st, err = e.ensure(ctx, st); err != nil {
			return nil, err
		}
		if p, err = e.plan(ctx, cfg, st); err != nil {
			return nil, err
		}
	} else if err := e.checkSaved(p, st, cfg); err != nil {
		return nil, err
	}
	// A saved plan's config already holds its auto-subnets and each change
	// its dependencies: nothing to prepare again.
	return e.run(ctx, st, p, opts)
}

// Destroy destroys everything in state, in reverse dependency order,
// honouring protect.
func (e *Engine) Destroy(ctx context.Context, opts ApplyOptions) (*Result, error) {
	st, unlock, err := e.locked(ctx, "destroy")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if st == nil {
		return &Result{Plan: &plan.Plan{Destroy: true, Environment: e.opts.Env}}, nil
	}
	p, err := e.planDestroy(st)
	if err != nil {
		return nil, err
	}
	return e.run(ctx, st, p, opts)
}

func (e *Engine) checkSaved(p *plan.Plan, st *state.File, cfg *config.Config) error {
	if p.FormatVersion != plan.FormatVersion {
		return fmt.Errorf("plan file format %d is not supported (this kyku reads %d)", p.FormatVersion, plan.FormatVersion)
	}
	if p.Redacted || (p.Config == nil && !p.Destroy) {
		return errors.New("this plan file is redacted (sensitive values masked) and cannot be applied; use the saved plan from the backend or plan again")
	}
	if p.Environment != e.opts.Env {
		return fmt.Errorf("plan is for environment %q, not %q", p.Environment, e.opts.Env)
	}
	switch {
	case st == nil:
		return &StaleError{Reason: "the state it was planned against no longer exists"}
	case st.Metadata.Lineage != p.Lineage:
		return &StaleError{Reason: fmt.Sprintf("state lineage is %s, plan was for %s", st.Metadata.Lineage, p.Lineage)}
	case st.Metadata.Serial != p.Serial:
		return &StaleError{Reason: fmt.Sprintf("state serial is %d, plan was for %d", st.Metadata.Serial, p.Serial)}
	case cfg != nil && !p.Destroy && cfg.Hash() != p.ConfigHash:
		return &StaleError{Reason: "the configuration differs from the one planned"}
	}
	return nil
}

// run executes p against st (locked) and persists the result.
func (e *Engine) run(ctx context.Context, st *state.File, p *plan.Plan, opts ApplyOptions) (*Result, error) {
	start := e.opts.Now()
	res := &Result{Plan: p, SerialBefore: st.Metadata.Serial, SerialAfter: st.Metadata.Serial}
	work := context.WithoutCancel(ctx)
	if opts.Confirm != nil && p.HasChanges() {
		ok, err := opts.Confirm(p)
		if err != nil {
			return nil, err
		}
		if !ok {
			return res, ErrNotConfirmed
		}
	}
	refreshed := refreshOutputs(st, p)
	outputs := e.outputs(p.Config, st)
	if !p.HasChanges() {
		res.Outputs = outputs
		if refreshed || !value.Equal(outputs, st.Outputs) && !(len(outputs) == 0 && len(st.Outputs) == 0) {
			st.Outputs = outputs
			st.Metadata.Serial++
			if err := e.backend.Write(work, st, statemgr.WriteOptions{}); err != nil {
				return nil, fmt.Errorf("write state: %w", err)
			}
			res.SerialAfter = st.Metadata.Serial
		}
		return res, nil
	}
	key, err := e.backend.Backup(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("back up state before apply: %w", err)
	}
	res.BackupKey = key
	res.Applied = true

	x := newExecution(e, st, p)
	errs := schedule(ctx, work, x.tasks, e.opts.Parallelism)
	x.collect(res, errs)
	res.Interrupted = ctx.Err() != nil && len(res.Skipped) > 0 // stopped before everything ran

	final := x.live
	final.Outputs = e.outputs(p.Config, final)
	if p.Destroy {
		final.Outputs = nil
	}
	final.Metadata.Serial = st.Metadata.Serial + 1
	if err := e.backend.Write(work, final, statemgr.WriteOptions{}); err != nil {
		return res, fmt.Errorf("write state (the journal keeps every finished change; the next run recovers it): %w", err)
	}
	if err := e.backend.ClearJournal(work); err != nil {
		return res, fmt.Errorf("clear journal: %w", err)
	}
	res.SerialAfter = final.Metadata.Serial
	res.Outputs = final.Outputs
	res.Duration = e.opts.Now().Sub(start)
	return res, nil
}

// refreshOutputs records in st the outputs the plan read from the cloud for
// unchanged resources (a Vm's new public IP), and reports whether any did.
func refreshOutputs(st *state.File, p *plan.Plan) bool {
	changed := false
	for _, c := range p.Changes {
		if r := st.Resources[c.ResourceID]; c.Action == plan.NoOp && c.Outputs != nil && r != nil {
			r.Outputs = value.CopyMap(c.Outputs)
			changed = true
		}
	}
	return changed
}

// outputs evaluates the config's outputs against st; unknown ones are left out.
func (e *Engine) outputs(cfg *config.Config, st *state.File) map[string]any {
	if cfg == nil {
		return st.Outputs
	}
	out := map[string]any{}
	for _, o := range cfg.Outputs {
		v, unknown := value.Resolve(o.Value, stateLookup(st))
		if !unknown {
			out[o.Name] = v
		}
	}
	return out
}

func stateLookup(st *state.File) value.Lookup {
	return func(r value.Ref) (any, bool) {
		sr := st.Resources[r.Resource]
		if sr == nil || sr.ProviderID == "" {
			return nil, false
		}
		if r.Attr == "" || r.Attr == "id" {
			return sr.ProviderID, true
		}
		v, ok := sr.Outputs[r.Attr]
		return v, ok
	}
}
