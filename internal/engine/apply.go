package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/value"
)

// ApplyOptions tune one apply or destroy. The zero value applies nothing:
// set AutoApprove, or give Confirm.
type ApplyOptions struct {
	// AutoApprove applies without asking (the seed's autoApprove; default
	// false). Without it and without Confirm, Apply and Destroy are refused
	// with ErrNotApproved before anything is locked or changed.
	AutoApprove bool
	// Confirm, when set, is called with the plan, under the lock, before
	// anything changes (also with AutoApprove, e.g. to show the plan);
	// returning false stops without changes.
	Confirm func(*plan.Plan) (bool, error)
	// Targets and Exclude limit an apply that plans (no saved plan) as
	// PlanOptions.Targets and Exclude do.
	Targets, Exclude []string
	// Replace, for an apply that plans, is PlanOptions.Replace (a saved
	// plan carries its own).
	Replace []string
	// Refresh, for an apply that plans, is PlanOptions.Refresh.
	Refresh RefreshMode
	// AllowDestroyAll lets the apply carry out a plan that destroys every
	// resource in state because the configuration has none (planned, or
	// saved: the word is needed again at apply); without it Apply refuses
	// such a plan with a *DestroyAllError. Destroy needs no such word.
	AllowDestroyAll bool
	// Timestamp, for an apply that plans, is PlanOptions.Timestamp.
	Timestamp time.Time
	// ForgetInterrupted drops the intents of these addresses' interrupted
	// creates (state.File.Interrupted), for an apply that plans or a
	// destroy: the user says no object was made there. The plan is made
	// without them and lists them (plan.Plan.ForgetInterrupted); the
	// state drops them only when that plan is carried out. An address
	// without one is refused, as is a saved plan.
	ForgetInterrupted []string
}

// ErrNotApproved is returned by Apply and Destroy given neither AutoApprove
// nor a Confirm callback.
var ErrNotApproved = errors.New("apply refused: not approved (set ApplyOptions.AutoApprove, or give a Confirm callback)")

func (o ApplyOptions) approved() error {
	if !o.AutoApprove && o.Confirm == nil {
		return ErrNotApproved
	}
	return nil
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
	// BackupKey names the backup of the state the apply replaced; "" when
	// it wrote none (nothing changed: SerialAfter is SerialBefore).
	BackupKey string
	Outputs   map[string]any
	Duration  time.Duration
	// Warnings are what the apply found to warn of: check blocks'
	// assertions that fail with what it made ("file:line:col: …").
	Warnings []string
}

// Err summarises a failed or interrupted apply, or returns nil.
func (r *Result) Err() error {
	switch {
	case len(r.Failed) > 0:
		return fmt.Errorf("apply failed: %d succeeded, %d failed, %d skipped: %s %s: %w",
			len(r.Succeeded), len(r.Failed), len(r.Skipped), r.Failed[0].Action, value.QuoteName(r.Failed[0].Name), r.Failed[0].Err)
	case r.Interrupted:
		return fmt.Errorf("apply interrupted: %d succeeded, %d not started", len(r.Succeeded), len(r.Skipped))
	}
	return nil
}

// ErrNotConfirmed is returned by Apply when Confirm declined.
var ErrNotConfirmed = errors.New("apply cancelled: plan not confirmed")

// Apply makes the cloud match cfg. With p nil it plans first (under the same
// lock). With a saved plan it applies exactly that plan's changes: under
// the lock it plans the plan's own configuration again against the current
// state and refuses (changing nothing) when that gives other changes than
// the plan lists (*MismatchError), when the state's lineage or serial moved
// on or the backend is not the one planned against (*StaleError), or, when
// cfg is given too, when cfg's hash or variables differ. A plan file that
// left write-only values out (plan.Plan.WriteOnly) needs cfg: they are
// taken from it (plan.ErrWriteOnlyLeftOut without it). What it applies is
// that fresh plan, equal to the saved one by plan.ChangesDigest. A plan
// that destroys every resource because the configuration has none is
// refused without AllowDestroyAll. Cancelling ctx stops starting new
// changes; running ones finish, the state is saved and the lock released.
func (e *Engine) Apply(ctx context.Context, cfg *config.Config, opts ApplyOptions, p *plan.Plan) (*Result, error) {
	if err := whole(cfg); err != nil {
		return nil, err
	}
	if err := opts.approved(); err != nil {
		return nil, err
	}
	if p == nil && cfg == nil {
		return nil, errors.New("apply: need a config or a saved plan")
	}
	if len(opts.ForgetInterrupted) > 0 && p != nil {
		return nil, errors.New("--forget-interrupted is given to an apply that plans, not with a saved plan: a plan refuses what it would drop")
	}
	if len(opts.ForgetInterrupted) == 0 { // dropping an intent takes the whole state's lock
		if res, done, err := e.applyLeased(ctx, cfg, opts, p); done {
			return res, err
		}
	}
	st, unlock, err := e.locked(ctx, "apply", true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	folding := cfg
	if folding == nil {
		folding = p.Config
	}
	// A saved plan was made against the answers folded in memory
	// (PlanWith), at the state's serial: folded here in memory too, so
	// that it is not stale for the fold's own write; its apply writes them.
	// The notes it closes stay locked until the apply ends: a saved
	// plan's apply removes none, its creates note their addresses anew.
	st, unlockNotes, err := e.fold(ctx, folding, st, p == nil, true) // answers.go
	if err != nil {
		return nil, err
	}
	defer unlockNotes()
	if p == nil {
		if st, err = e.ensure(ctx, st, ""); err != nil {
			return nil, err
		}
		view, forgot, err := e.forgetting(ctx, st, opts.ForgetInterrupted) // forgetintent.go
		if err != nil {
			return nil, err
		}
		if view == nil {
			view = st
		}
		if p, err = e.plan(ctx, cfg, view, true, opts.planOptions()); err != nil {
			return nil, err
		}
		p.ForgetInterrupted = forgot
	} else {
		if p, err = e.savedPrelude(p, st, cfg, opts, false); err != nil {
			return nil, err
		}
		fresh, err := e.replan(ctx, p, st)
		if err != nil {
			return nil, err
		}
		// A first plan wrote no state: its apply creates it, with the
		// deploy prefix the plan chose and named its creates with.
		if st, err = e.ensure(ctx, st, p.Prefix); err != nil {
			return nil, err
		}
		p = fresh
	}
	// A saved plan's config already holds its auto-subnets and each change
	// its dependencies: nothing to prepare again.
	return e.run(ctx, st, p, opts)
}

// Destroy destroys everything in state, in reverse dependency order,
// honouring protect.
func (e *Engine) Destroy(ctx context.Context, opts ApplyOptions) (*Result, error) {
	if err := opts.approved(); err != nil {
		return nil, err
	}
	st, unlock, err := e.locked(ctx, "destroy", true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	view, forgot, err := e.forgetting(ctx, st, opts.ForgetInterrupted) // forgetintent.go
	if err != nil {
		return nil, err
	}
	if st == nil {
		return &Result{Plan: &plan.Plan{Destroy: true, Environment: e.opts.Env}}, nil
	}
	p, err := e.planDestroy(ctx, view)
	if err != nil {
		return nil, err
	}
	p.ForgetInterrupted = forgot
	return e.run(ctx, st, p, opts)
}

// checkSaved refuses a saved plan p that is not for this environment,
// provider, backend, state and configuration. Leased, p's serial is not
// held to st's: its objects' versions were checked instead (objectsStale).
func (e *Engine) checkSaved(p *plan.Plan, st *state.File, cfg *config.Config, leased bool) error {
	if p.FormatVersion != plan.FormatVersion {
		return fmt.Errorf("plan file format %d is not supported (this kyku reads %d)", p.FormatVersion, plan.FormatVersion)
	}
	if p.Redacted || (p.Config == nil && !p.Destroy) {
		return errors.New("this plan file is redacted (sensitive values masked) and cannot be applied; use the saved plan from the backend or plan again")
	}
	if p.Environment != e.opts.Env {
		return fmt.Errorf("plan is for environment %q, not %q", p.Environment, e.opts.Env)
	}
	if p.Provider != "" && p.Provider != e.provider.Name() {
		return fmt.Errorf("plan is for provider %s, not %s", p.Provider, e.provider.Name())
	}
	// The plan names the state it was planned against: applied to another
	// (another working directory, another backend), its creates would
	// duplicate what that state already has in the cloud.
	if p.Backend != "" && p.Backend != e.describeBackend() {
		return &StaleError{Reason: "it was planned against the state at " + p.Backend + ", and this apply opens " + e.describeBackend() +
			" (apply it with the configuration and state directory it was planned with)"}
	}
	switch {
	case !p.StateExists && st != nil:
		return &StaleError{Reason: "it was planned before any state existed, and a state has been written since"}
	case !p.StateExists && p.Prefix == "":
		return errors.New("plan file has no deploy prefix (planned without a state)")
	case !p.StateExists:
	case st == nil:
		return &StaleError{Reason: "the state it was planned against no longer exists"}
	case st.Metadata.Lineage != p.Lineage:
		return &StaleError{Reason: fmt.Sprintf("state lineage is %s, plan was for %s", st.Metadata.Lineage, p.Lineage)}
	case !leased && st.Metadata.Serial != p.Serial:
		return &StaleError{Reason: fmt.Sprintf("state serial is %d, plan was for %d", st.Metadata.Serial, p.Serial)}
	case cfg != nil && !p.Destroy && (cfg.Hash() != p.ConfigHash || cfg.SecretsHash() != p.SecretsHash):
		return &StaleError{Reason: "the configuration differs from the one planned"}
	case cfg != nil && !p.Destroy && p.VariablesHash != "" && cfg.VariablesHash() != p.VariablesHash:
		return &StaleError{Reason: "the variables' values differ from the ones planned with"}
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
	if !p.HasChanges() && leasedRun(ctx) != nil {
		res.Outputs = st.Outputs // the leases cover no object to record anything of
		return res, nil
	}
	if !p.HasChanges() {
		next := st.Clone()
		recorded := recordUnchanged(next, p, e.statePathsIn(work))
		lookup := applyingAt(e.stateLookup(next, p.Data), start)
		outputs, types := e.typedOutputs(p.Config, next, lookup)
		outputs, types = keepOutputs(outputs, types, p.KeptOutputs, st)
		res.Outputs = outputs
		if !p.Destroy && p.Config != nil {
			res.Warnings = checkAssertions(p.Config, lookup)
		}
		if changed := e.recordOutputs(work, p.Config, st, next, outputs, types); recorded || changed {
			next.Metadata.Serial++
			if err := e.backend.Write(work, next, statemgr.WriteOptions{}); err != nil {
				return nil, fmt.Errorf("write state: %w", err)
			}
			res.SerialAfter = next.Metadata.Serial
		}
		return res, nil
	}
	res.Applied = true
	prior := st

	// The intents the plan forgets are dropped, then moves rename state
	// resources, before anything else runs: neither touches a cloud
	// object, and every later change names the new.
	st, seq, err := e.journalForgets(work, st, p) // forgetintent.go
	if err != nil {
		return res, err
	}
	st, seq, err = e.journalMoves(work, st, p, seq)
	if err != nil {
		return res, err
	}
	x := newExecution(e, st, p, e.statePathsIn(work))
	x.at = start
	x.seq.Store(seq)
	// Interrupted: the running changes are asked to end early (a
	// Terraform provider's StopProvider), as Terraform does; what they did
	// is recorded.
	stop := context.AfterFunc(ctx, func() { _ = e.provider.Stop(work) })
	defer stop()
	var errs map[int]error
	func() {
		if e.opts.Executing != nil {
			defer e.opts.Executing()()
		}
		errs = schedule(ctx, work, x.tasks, e.opts.Parallelism)
	}()
	e.releaseNotes(work) // answers.go
	x.collect(res, errs)
	res.Interrupted = ctx.Err() != nil && len(res.Skipped) > 0 // stopped before everything ran
	res.Duration = e.opts.Now().Sub(start)
	if x.seq.Load() == 0 {
		// Nothing was journaled: every change failed or was skipped before
		// it changed anything. The state and its backups stay as they were.
		res.Outputs = prior.Outputs
		return res, nil
	}

	// The state replaced is backed up first (a crashed run's is, by the
	// run that recovers its journal: see load).
	key, err := e.backend.Backup(work, prior)
	if err != nil {
		return res, fmt.Errorf("back up state (the journal keeps every finished change; the next run recovers it): %w", err)
	}
	res.BackupKey = key
	final := x.live
	final.Outputs, final.OutputTypes = nil, nil
	made := applyingAt(e.stateLookup(final, x.data), start) // what the outputs and checks read
	outs, types := e.typedOutputs(p.Config, final, made)
	outs, types = keepOutputs(outs, types, p.KeptOutputs, st)
	e.learnOutputs(p.Config, outs)
	if !p.Destroy && p.Config != nil {
		// Check blocks are checked again with what apply made, as
		// OpenTofu checks them (a failure warns).
		res.Warnings = append(x.warnings, checkAssertions(p.Config, made)...)
	}
	if !p.Destroy {
		final.Outputs = outs
		final.OutputTypes = e.outputTypes(work, p.Config, final.Outputs, types)
	}
	final.OutputSensitivity = outputSensitivity(p.Config, final.Outputs, st)
	final.Metadata.Serial = st.Metadata.Serial + 1
	if rs := leasedRun(ctx); rs != nil {
		return e.commitLeased(work, rs, res, prior, final) // prior: what a move took its object from is still there
	}
	if err := e.backend.Write(work, final, statemgr.WriteOptions{}); err != nil {
		return res, fmt.Errorf("write state (the journal keeps every finished change; the next run recovers it): %w", err)
	}
	if err := e.backend.ClearJournal(work); err != nil {
		return res, fmt.Errorf("clear journal: %w", err)
	}
	res.SerialAfter = final.Metadata.Serial
	res.Outputs = final.Outputs
	if !p.Destroy && p.Config != nil {
		// Outputs' preconditions on what the apply made (unknown at
		// plan) are decided now, as OpenTofu decides them: a failure
		// is the apply's error, its changes recorded.
		var diags diag.Diagnostics
		checkOutputConditions(&diags, p.Config, made)
		if err := diags.Err(); err != nil {
			return res, err
		}
	}
	return res, nil
}

// recordUnchanged records in st what the plan learnt about resources it
// leaves unchanged in the cloud, and reports whether anything differed: the
// real provider ID of a stale one resolved by name (adoption), the
// dependencies and protect flag the config now gives them (so a later
// destroy orders and guards them by the config that was applied), and the
// outputs read from the cloud (a Vm's new public IP), and the properties
// that became secret.
func recordUnchanged(st *state.File, p *plan.Plan, toState statePathsFunc) bool {
	changed := false
	for _, c := range p.Changes {
		r := st.Resources[c.ResourceID]
		if (c.Action != plan.NoOp && c.Action != plan.Move) || r == nil {
			continue
		}
		if c.ProviderID != "" && c.ProviderID != r.ProviderID {
			r.ProviderID = c.ProviderID
			if c.CloudName != "" {
				r.CloudName = c.CloudName
			}
			changed = true
		}
		if !sameNames(r.Dependencies, c.Dependencies) {
			r.Dependencies = append([]string(nil), c.Dependencies...)
			changed = true
		}
		if p.Config != nil {
			if cr := p.Config.Resource(c.ResourceID); cr != nil && (cr.Protect != r.Protect || cr.SkipDestroy != r.SkipDestroy) {
				r.Protect, r.SkipDestroy = cr.Protect, cr.SkipDestroy
				changed = true
			}
		}
		if c.Outputs != nil {
			r.Outputs = value.CopyMap(c.Outputs)
			changed = true
		}
		if more, within := addSecret(r.Sensitive, r.SensitiveWithin, c.Sensitive, stateWithin(c, toState)); !slices.Equal(more, r.Sensitive) || !maps.EqualFunc(within, r.SensitiveWithin, slices.Equal) {
			r.Sensitive, r.SensitiveWithin = more, within // newly secret; what was secret stays so until the value changes
			changed = true
		}
		if c.Basis != nil && (!c.Basis.Same(r.Basis) || !c.Basis.ReadAt.Equal(r.Basis.ReadAt)) {
			b := *c.Basis // what it was planned from: the next plan takes it as it is
			r.Basis = &b
			changed = true
		}
		if pp := c.Planned; pp != nil && c.Action == plan.NoOp && (pp.SchemaVersion != r.SchemaVersion || !bytes.Equal(pp.Private, r.Private)) {
			r.SchemaVersion, r.Private = pp.SchemaVersion, pp.Private // what its provider's read returned
			changed = true
		}
	}
	return changed
}

func sameNames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// outputs evaluates the config's outputs with lookup, which reads st
// (stateLookup; applyingAt for an apply's, whose impure functions,
// timestamp() and uuid(), are known then); unknown ones are left out.
// Without cfg they are st's.
func (e *Engine) outputs(cfg *config.Config, st *state.File, lookup value.Lookup) map[string]any {
	out, _ := e.typedOutputs(cfg, st, lookup)
	return out
}

// typedOutputs is outputs with the types their values say (a Terraform
// expression's, value.TypedExpr, or a constant's, config.Output.Type),
// by name, where one says it.
func (e *Engine) typedOutputs(cfg *config.Config, st *state.File, lookup value.Lookup) (out, types map[string]any) {
	if cfg == nil {
		return st.Outputs, nil
	}
	out = map[string]any{}
	for _, o := range cfg.Outputs {
		var v, t any
		var unknown bool
		if te, ok := o.Value.(value.TypedExpr); ok {
			v, t, unknown, _ = te.EvalTyped(lookup) // an error is unknown
		} else {
			v, unknown = value.Resolve(o.Value, lookup)
			t = o.Type
		}
		if unknown {
			continue
		}
		out[o.Name] = v
		if t != nil {
			if types == nil {
				types = map[string]any{}
			}
			types[o.Name] = t
		}
	}
	return out, types
}

// applyingAt is lookup answering value.Applying with at, the time of the
// apply it reads for (the impure functions are known then); lookup
// itself for a zero at.
func applyingAt(lookup value.Lookup, at time.Time) value.Lookup {
	if at.IsZero() {
		return lookup
	}
	return func(r value.Ref) (any, bool) {
		if r == value.Applying {
			return at, true
		}
		return lookup(r)
	}
}

// outputSensitivity is what state records of which outputs are
// sensitive (state.File.OutputSensitivity): an entry for each of outputs,
// as cfg declares it; without cfg (outputs kept as they were), st's.
func outputSensitivity(cfg *config.Config, outputs map[string]any, st *state.File) map[string]bool {
	if len(outputs) == 0 {
		return nil
	}
	if cfg == nil {
		return maps.Clone(st.OutputSensitivity)
	}
	sensitive := cfg.SensitiveOutputs()
	out := make(map[string]bool, len(outputs))
	for name := range outputs {
		out[name] = sensitive[name]
	}
	return out
}

// stateLookup resolves references against st (and data, the values of
// the data sources the plan read). An attribute a self-planned
// resource's state leaves out is null (its provider's schema has it:
// validation refused any other).
func (e *Engine) stateLookup(st *state.File, data map[string]map[string]any) value.Lookup {
	return func(r value.Ref) (any, bool) { return e.stateRead(st, data, r) }
}

// stateRead is what stateLookup(st, data) answers r, without making the
// lookup (the apply asks it for every reference it resolves).
func (e *Engine) stateRead(st *state.File, data map[string]map[string]any, r value.Ref) (any, bool) {
	if r.Attr == value.ObjectType {
		return e.objectType(r.Resource)
	}
	v, ok := e.stateValue(st, data, r)
	return e.withNulls(r, v, ok)
}

// stateValue is stateRead but for the nulls withNulls fills in.
func (e *Engine) stateValue(st *state.File, data map[string]map[string]any, r value.Ref) (any, bool) {
	if vals, ok := data[r.Resource]; ok {
		return plannedValue(vals, r.Attr)
	}
	sr := st.Resources[r.Resource]
	if sr == nil || sr.ProviderID == "" {
		return nil, false
	}
	switch r.Attr {
	case "", "id":
		return sr.ProviderID, true
	case value.AllAttrs:
		return wholeObject(sr.ProviderID, sr.Config, sr.Outputs), true
	}
	v, ok := sr.Outputs[r.Attr]
	if !ok && e.ownState(sr.Type) {
		return nil, true
	}
	return v, ok
}
