package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/envname"
	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/value"
)

// With Options.Leases, an apply holds leases on the objects it changes and
// on those they read from, not the whole state lock, so applies that touch
// different objects run at the same time:
//
//  1. it plans (or takes the saved plan) against the state as it is, and
//     leases the plan's objects (lease.Manager.Acquire: waiting for a held
//     one, or refusing after the timeout naming it, its holder and run);
//  2. it folds the journals of runs that died holding leases (their
//     finished changes, each only while its object is still as they found
//     it: lease.Fold);
//  3. it reads the state again and refuses a saved plan one of whose
//     objects changed since it was planned (*StaleError naming it), then
//     plans the saved plan's configuration again limited to the changes
//     it lists (so a branch behind never reverts what another apply
//     changed since) and refuses when that differs (*MismatchError);
//  4. it journals into a journal of its own (lease.Journal) and writes the
//     state by a conditional write that, when another apply wrote first,
//     reads the state again and puts its own objects into it (never
//     another's: those are not leased to it).
//
// A first apply (no state yet), a destroy, and a state with a journal the
// whole-state lock's runs left take the whole-state lock as before.

// leasedRunState is what run needs of a leased apply: its leases, its
// journal, and the state it started from.
type leasedRunState struct {
	set     *lease.Set
	journal *lease.Journal
}

type leasedRunKey struct{}

// leasedRun returns the leased apply ctx runs for, or nil.
func leasedRun(ctx context.Context) *leasedRunState {
	rs, _ := ctx.Value(leasedRunKey{}).(*leasedRunState)
	return rs
}

// journalOf is the journal an apply running with ctx appends to: its own
// when leased, else the state's.
func journalOf(ctx context.Context, b statemgr.Backend) statemgr.Journal {
	if rs := leasedRun(ctx); rs != nil {
		return rs.journal
	}
	return b
}

// recordObjects records in p the version of every object it touches, when
// the state's objects are leased one by one.
func (e *Engine) recordObjects(p *plan.Plan, st *state.File) {
	if e.opts.Leases == nil || p == nil || p.Destroy {
		return
	}
	p.Objects = map[string]string{}
	for _, n := range touchedObjects(p, st) {
		p.Objects[n] = lease.Digest(st, n)
	}
}

// changedObjects are the state objects p's changes write: each changed
// resource, and where a move takes one from.
func changedObjects(p *plan.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		if c.Action == plan.NoOp {
			continue
		}
		out = append(out, c.ResourceID)
		if c.MovedFrom != "" {
			out = append(out, c.MovedFrom)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// touchedObjects are the objects p changes and those they read from (their
// dependencies, as configured and as last applied).
func touchedObjects(p *plan.Plan, st *state.File) []string {
	out := changedObjects(p)
	for _, c := range p.Changes {
		if c.Action == plan.NoOp {
			continue
		}
		out = append(out, c.Dependencies...)
		if r := st.Resources[c.ResourceID]; r != nil {
			out = append(out, r.Dependencies...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// applyLeased is Apply under leases; done is false when the apply takes
// the whole-state lock instead (see above).
func (e *Engine) applyLeased(ctx context.Context, cfg *config.Config, opts ApplyOptions, saved *plan.Plan) (res *Result, done bool, err error) {
	m := e.opts.Leases
	if m == nil || (saved != nil && (saved.Destroy || saved.Objects == nil)) {
		return nil, false, nil
	}
	if err := envname.Check(e.opts.Env); err != nil {
		return nil, true, fmt.Errorf("apply: %w", err)
	}
	st0, err := e.backend.Read(ctx)
	if err != nil {
		return nil, true, fmt.Errorf("read state (%s): %w", e.backend.Describe(), err)
	}
	if st0 == nil || st0.Metadata.Prefix == "" {
		return nil, false, nil
	}
	// A journal of the whole-state lock's runs: the lock's recovery folds
	// it first. Read without the lock, it may be being cleared by the run
	// holding it: the lock's path reads it again once that run is done.
	if entries, err := e.backend.Entries(ctx); err != nil || len(entries) > 0 {
		return nil, false, nil
	}
	e.learnState(st0)
	p := saved
	if p == nil {
		if p, err = e.plan(ctx, cfg, st0, true, opts.planOptions()); err != nil {
			return nil, true, err
		}
		e.recordObjects(p, st0)
	}
	objects := touchedObjects(p, st0)
	for n := range p.Objects {
		objects = append(objects, n)
	}
	info := e.opts.Lock
	info.Operation = "apply"
	holder := lease.Holder{Run: statemgr.NewLockID(), PR: e.opts.PR, Lock: statemgr.ForRun(ctx, info)}
	set, err := m.Acquire(ctx, objects, holder)
	if err != nil {
		return nil, true, fmt.Errorf("lease the objects of the apply (%s): %w", e.backend.Describe(), err)
	}
	defer func() {
		uctx := context.WithoutCancel(ctx)
		if lerr := set.Release(uctx); lerr != nil && err == nil {
			err = fmt.Errorf("apply held its leases to the end, but one was taken over: %w", lerr)
		}
	}()
	if err := e.recoverRuns(ctx, m, holder.Run); err != nil {
		return nil, true, err
	}
	st, err := e.backend.Read(ctx)
	if err != nil {
		return nil, true, fmt.Errorf("read state (%s): %w", e.backend.Describe(), err)
	}
	if st == nil {
		return nil, true, &StaleError{Reason: "the state it was planned against no longer exists"}
	}
	e.learnState(st)
	if err := objectsStale(p, st); err != nil {
		if saved != nil {
			return nil, true, err
		}
		// Planned here: plan again against the state as it is now, and
		// go on when that touches nothing more than is leased.
		if p, err = e.plan(ctx, cfg, st, true, opts.planOptions()); err != nil {
			return nil, true, err
		}
		e.recordObjects(p, st)
		for _, n := range touchedObjects(p, st) {
			if !set.Holds(n) {
				return nil, true, &StaleError{Reason: fmt.Sprintf("objects it touches changed while it waited for their leases, and planning again needs %s too; apply again", value.QuoteName(n))}
			}
		}
	}
	// A create another run left interrupted while this one waited for its
	// leases (its intent is open in the state now): the object may exist,
	// and the plan above never saw the intent. Refused as a plan would be
	// (objectsStale does not see it: no object there before or after).
	if err := refuseInterrupted(st, p.Changes); err != nil {
		return nil, true, e.markUnkept(ctx, st, err) // answers.go
	}
	if saved != nil {
		if p, err = e.savedPrelude(saved, st, cfg, opts, true); err != nil {
			return nil, true, err
		}
		if p, err = e.replanChanges(ctx, p, st); err != nil {
			return nil, true, err
		}
	}
	rs := &leasedRunState{set: set}
	rs.journal = m.Journal(holder.Run, func(n string) string { return lease.Digest(st, n) })
	for _, n := range changedObjects(p) {
		if !set.Holds(n) {
			return nil, true, fmt.Errorf("apply would change %s, which it does not lease", value.QuoteName(n))
		}
	}
	res, err = e.run(context.WithValue(ctx, leasedRunKey{}, rs), st, p, opts)
	return res, true, err
}

// objectsStale refuses p when an object it touches is no longer at the
// version it was planned with (another apply changed it).
func objectsStale(p *plan.Plan, st *state.File) error {
	if p.Lineage != "" && p.Lineage != st.Metadata.Lineage {
		return &StaleError{Reason: fmt.Sprintf("state lineage is %s, plan was for %s", st.Metadata.Lineage, p.Lineage)}
	}
	names := make([]string, 0, len(p.Objects))
	for n := range p.Objects {
		names = append(names, n)
	}
	slices.SortFunc(names, value.CompareNames)
	for _, n := range names {
		if lease.Digest(st, n) != p.Objects[n] {
			return &StaleError{Reason: fmt.Sprintf("%s changed since it was planned (another apply changed it)", value.QuoteName(n))}
		}
	}
	return nil
}

// replanChanges plans saved's configuration again against st limited to
// the resources saved changes, and returns that plan when it makes
// exactly saved's changes (no-ops aside), else a *MismatchError.
func (e *Engine) replanChanges(ctx context.Context, saved *plan.Plan, st *state.File) (*plan.Plan, error) {
	targets := changedResources(saved)
	if len(targets) == 0 {
		return saved, nil
	}
	opts := savedPlanOptions(saved, targets)
	opts.Exclude, opts.Limited, opts.KeptOutputs = nil, true, saved.KeptOutputs
	fresh, err := e.plan(ctx, saved.Config.Clone(), st, true, opts)
	if err != nil {
		return nil, fmt.Errorf("plan the saved plan's configuration again: %w", err)
	}
	want, err := plan.ChangesDigest(changesOnly(saved))
	if err != nil {
		return nil, err
	}
	got, err := plan.ChangesDigest(changesOnly(fresh))
	if err != nil {
		return nil, err
	}
	if got != want {
		return nil, &MismatchError{Reason: difference(changesOnly(saved), asListed(fresh, saved)), Saved: want, Fresh: got}
	}
	sc, fc := changesOnly(saved).Changes, changesOnly(fresh).Changes
	for i := range sc {
		if !sc[i].Planned.Same(fc[i].Planned) {
			return nil, &MismatchError{Reason: fmt.Sprintf("%s %s: its provider's planned state or private data differ", sc[i].Action, value.QuoteName(sc[i].ResourceID)), Saved: want, Fresh: got}
		}
	}
	fresh.Objects = saved.Objects
	// Limited to saved's changes, not targeted by its user: a plan
	// destroying everything is still one, and it leaves the outputs
	// saved's left.
	fresh.Targets, fresh.Exclude, fresh.KeptOutputs = saved.Targets, saved.Exclude, saved.KeptOutputs
	return fresh, nil
}

// changedResources are the resources p's changes write, by their names
// in the configuration (a move's former name is not one: planning the
// new name plans the move).
func changedResources(p *plan.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		if c.Action != plan.NoOp {
			out = append(out, c.ResourceID)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// asListed is fresh's changes as saved lists them: its changes, and its
// no-ops of resources saved changes (so that a change planning again no
// longer makes is named as planning again says it: a no-op).
func asListed(fresh, saved *plan.Plan) *plan.Plan {
	listed := map[string]bool{}
	for _, c := range saved.Changes {
		listed[c.ResourceID] = true
	}
	q := changesOnly(fresh)
	q.Changes = nil
	for _, c := range fresh.Changes {
		if c.Action != plan.NoOp || listed[c.ResourceID] {
			c.Level = 0
			q.Changes = append(q.Changes, c)
		}
	}
	return q
}

// changesOnly is p with its no-op changes, targets and levels left out:
// what a plan limited to its changes must make again.
func changesOnly(p *plan.Plan) *plan.Plan {
	q := *p
	q.Targets, q.Exclude = nil, nil
	q.Changes = nil
	for _, c := range p.Changes {
		if c.Action != plan.NoOp {
			c.Level = 0
			q.Changes = append(q.Changes, c)
		}
	}
	return &q
}

// recoverRuns folds into the state the journals of runs that died holding
// leases, and clears them.
func (e *Engine) recoverRuns(ctx context.Context, m *lease.Manager, self string) error {
	orphans, err := e.orphans(ctx, m, self)
	if err != nil {
		return err
	}
	for _, o := range orphans {
		if _, err := e.mergeWrite(ctx, func(st *state.File) (bool, error) { return lease.Fold(st, o.recs), nil }); err != nil {
			return fmt.Errorf("recover the journal of dead apply %s: %w", o.journal.Run(), err)
		}
		if err := o.journal.ClearJournal(ctx); err != nil {
			return err
		}
	}
	return nil
}

// orphan is the journal of a run that died holding leases, and its records.
type orphan struct {
	journal *lease.Journal
	recs    []lease.Record
}

// orphans reads the journals of the runs that died holding leases (self
// left out); the secrets their entries hold are learnt first.
func (e *Engine) orphans(ctx context.Context, m *lease.Manager, self string) ([]orphan, error) {
	journals, err := m.Orphans(ctx, self)
	if err != nil {
		return nil, fmt.Errorf("find journals of dead applies: %w", err)
	}
	out := make([]orphan, 0, len(journals))
	for _, j := range journals {
		recs, err := j.Records(ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			e.opts.Secrets.Add(appendSecrets(nil, r.Entry.Resource)...)
		}
		out = append(out, orphan{journal: j, recs: recs})
	}
	return out, nil
}

// commitLeased writes the objects a leased apply changed (and outputs
// whose value it changed) into the state as it is now, and clears the
// apply's journal.
func (e *Engine) commitLeased(ctx context.Context, rs *leasedRunState, res *Result, base, final *state.File) (*Result, error) {
	changed := changedObjects(res.Plan)
	serial, err := e.mergeWrite(ctx, func(cur *state.File) (bool, error) {
		if cur.Metadata.Lineage != base.Metadata.Lineage {
			return false, fmt.Errorf("state lineage changed to %s while applying (it was %s): %w", cur.Metadata.Lineage, base.Metadata.Lineage, statemgr.ErrConflict)
		}
		for _, n := range changed {
			if lease.Digest(cur, n) != lease.Digest(base, n) {
				return false, fmt.Errorf("%s was changed by another apply while this one held its lease; nothing of it is overwritten: %w", value.QuoteName(n), statemgr.ErrConflict)
			}
		}
		for _, n := range changed {
			if r := final.Resources[n]; r != nil {
				cur.Resources[n] = r.Clone()
			} else {
				delete(cur.Resources, n)
			}
		}
		mergeIntents(cur, final, changed) // intent.go
		mergeOutputs(cur, base, final)
		return true, nil
	})
	if err != nil {
		return res, fmt.Errorf("write state (the journal keeps every finished change; the next run recovers it): %w", err)
	}
	if err := rs.journal.ClearJournal(ctx); err != nil {
		return res, fmt.Errorf("clear journal: %w", err)
	}
	res.SerialAfter = serial
	res.Outputs = final.Outputs
	return res, nil
}

// mergeOutputs sets in cur each output final gives a value other than
// base's: an apply's own outputs, never setting back another's.
func mergeOutputs(cur, base, final *state.File) {
	for name, v := range final.Outputs {
		if old, ok := base.Outputs[name]; ok && value.Equal(old, v) {
			continue
		}
		if cur.Outputs == nil {
			cur.Outputs = map[string]any{}
		}
		cur.Outputs[name] = v
		if t, ok := final.OutputTypes[name]; ok {
			if cur.OutputTypes == nil {
				cur.OutputTypes = map[string]any{}
			}
			cur.OutputTypes[name] = t
		}
		if s, ok := final.OutputSensitivity[name]; ok {
			if cur.OutputSensitivity == nil {
				cur.OutputSensitivity = map[string]bool{}
			}
			cur.OutputSensitivity[name] = s
		}
	}
}

// mergeMu serializes the read-change-write of mergeWrite per state: a
// backend's conditional Write is on the version its last Read saw, which
// two goroutines sharing it would mix up. Keyed by the state's
// description (bounded by the states a process writes; a bot opens a
// backend per job).
var mergeMu sync.Map // Backend.Describe() → *sync.Mutex

// mergeAttempts bounds mergeWrite's rounds: each lost one means another
// apply wrote meanwhile, and made progress.
const mergeAttempts = 100

// mergeWrite reads the state, lets change change it, and writes it with
// the next serial, conditionally on the version read: when another apply
// wrote first (statemgr.ErrConflict) it reads and changes again. change
// reporting false writes nothing. It returns the serial written (or read).
func (e *Engine) mergeWrite(ctx context.Context, change func(*state.File) (bool, error)) (int64, error) {
	mu, _ := mergeMu.LoadOrStore(e.backend.Describe(), &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	for range mergeAttempts {
		cur, err := e.backend.Read(ctx)
		if err != nil {
			return 0, fmt.Errorf("read state (%s): %w", e.backend.Describe(), err)
		}
		if cur == nil {
			return 0, errors.New("the state vanished while applying")
		}
		ok, err := change(cur)
		if err != nil || !ok {
			return cur.Metadata.Serial, err
		}
		cur.Metadata.Serial++
		err = e.backend.Write(ctx, cur, statemgr.WriteOptions{})
		if err == nil {
			return cur.Metadata.Serial, nil
		}
		if !errors.Is(err, statemgr.ErrConflict) {
			return 0, err
		}
	}
	return 0, fmt.Errorf("the state kept changing under %d attempts to merge into it: %w", mergeAttempts, statemgr.ErrConflict)
}

// RecoverLeased folds into the state the journals of leased applies that
// died (what every leased apply does once it holds its leases) and deletes
// the leases they left; without
// Options.Leases it does nothing.
func (e *Engine) RecoverLeased(ctx context.Context) error {
	if e.opts.Leases == nil {
		return nil
	}
	if err := e.recoverRuns(ctx, e.opts.Leases, ""); err != nil {
		return err
	}
	return e.opts.Leases.Sweep(ctx)
}

// holdWhole is, for an operation under the whole-state lock that writes
// the state, the whole state's lease (lease.Manager.AcquireWhole): it
// waits for the leased applies running to end, and those starting wait for
// it. unlock releases the lock; the function returned releases both.
func (e *Engine) holdWhole(ctx context.Context, op string, unlock func()) (func(), error) {
	m := e.opts.Leases
	if m == nil {
		return unlock, nil
	}
	info := e.opts.Lock
	info.Operation = op
	set, err := m.AcquireWhole(ctx, lease.Holder{Run: statemgr.NewLockID(), PR: e.opts.PR, Lock: statemgr.ForRun(ctx, info)})
	if err != nil {
		unlock()
		return nil, fmt.Errorf("%s: wait for the applies holding leases (%s): %w", op, e.backend.Describe(), err)
	}
	return func() {
		_ = set.Release(context.WithoutCancel(ctx))
		unlock()
	}, nil
}

// WithPR returns a copy of e whose leases name pull request n.
func (e *Engine) WithPR(n int) *Engine {
	c := *e
	c.opts.PR = n
	return &c
}

// Leased reports whether e's applies lease their objects.
func (e *Engine) Leased() bool { return e.opts.Leases != nil }

// ChangedResources are the resources p's changes write, by their names
// in the configuration: a plan limited to them with PlanOptions.Targets
// makes p's changes again (a move's former name is no target; planning
// its new name plans the move).
func ChangedResources(p *plan.Plan) []string { return changedResources(p) }

// SameChanges reports whether a and b make the same changes, no-ops,
// targets and levels aside: what a plan limited to a's changes must make
// again for a to be applied under leases.
func SameChanges(a, b *plan.Plan) (bool, error) {
	da, err := plan.ChangesDigest(changesOnly(a))
	if err != nil {
		return false, err
	}
	db, err := plan.ChangesDigest(changesOnly(b))
	if err != nil {
		return false, err
	}
	return da == db, nil
}

// foldOrphans folds into st, in memory, the journals of leased applies
// that died: what a plan is computed against, so that it plans on what
// those applies finished (the next leased apply folds them for good, with
// the same result). st is changed in place.
func (e *Engine) foldOrphans(ctx context.Context, st *state.File) error {
	if e.opts.Leases == nil || st == nil {
		return nil
	}
	orphans, err := e.orphans(ctx, e.opts.Leases, "")
	if err != nil {
		return err
	}
	for _, o := range orphans {
		lease.Fold(st, o.recs)
	}
	return nil
}
