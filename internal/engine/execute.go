package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// execution is one apply in flight: the task graph and the live state that
// finished changes update (and journal) as they go.
type execution struct {
	e     *Engine
	p     *plan.Plan
	at    time.Time // when the apply started: the objects it writes are read then (state.Basis)
	base  *state.File
	tasks []*task
	owner []int // task id → index of its change in p.Changes

	mu      sync.Mutex
	live    *state.File
	data    map[string]map[string]any // the data sources' values: the plan's, then what reads during apply found
	seq     atomic.Int64
	results map[int]*ChangeResult // by change index
	started map[int]time.Time
	// warnings are what the apply warns of: a check block's data source
	// that failed to read.
	warnings []string
}

func newExecution(e *Engine, st *state.File, p *plan.Plan, toState statePathsFunc) *execution {
	x := &execution{e: e, p: p, base: st, live: st.Clone(), data: maps.Clone(p.Data), results: map[int]*ChangeResult{}, started: map[int]time.Time{}}
	recordUnchanged(x.live, p, toState) // adopted IDs are what references resolve to
	x.build(true)
	if hasCycle(x.tasks) {
		// Ordering destroys after the updates of their former dependents
		// can conflict with replaces; fall back to the essential edges.
		x.build(false)
	}
	return x
}

// build creates the tasks: one per change, two (destroy part, create part)
// per replace.
func (x *execution) build(destroyAfterUpdates bool) {
	x.tasks, x.owner = nil, nil
	idx := map[string]int{}
	for i, c := range x.p.Changes {
		if c.Action != plan.NoOp {
			idx[c.ResourceID] = i
		}
	}
	// State dependents: who depended on a resource when last applied.
	dependents := map[string][]string{}
	for _, n := range x.base.Names() {
		for _, d := range x.base.Resources[n].Dependencies {
			dependents[d] = append(dependents[d], n)
		}
	}
	// An object a create-before-destroy replace left to destroy was used
	// by what used its resource.
	for _, n := range x.base.Names() {
		if of, ok := plan.DeposedOf(n); ok {
			dependents[n] = dependents[of]
		}
	}
	mainTask := map[int]int{} // change index → its main task (create part of a replace)
	destroyTask := map[int]int{}
	add := func(ci int, run func(context.Context) (func(context.Context) error, error)) *task {
		t := &task{id: len(x.tasks), run: run}
		x.tasks = append(x.tasks, t)
		x.owner = append(x.owner, ci)
		return t
	}
	renameTask := map[int]int{} // change index → the rename before its update
	for i := range x.p.Changes {
		c := &x.p.Changes[i]
		switch c.Action {
		case plan.NoOp:
		case plan.Replace:
			cbd := c.ReplaceOrder == plan.CreateBeforeDestroy
			d := add(i, x.destroyTask(i, cbd))
			destroyTask[i] = d.id
			mainTask[i] = add(i, x.createPart(i, !cbd)).id
		case plan.Destroy, plan.Forget:
			t := add(i, x.destroy(i))
			destroyTask[i], mainTask[i] = t.id, t.id
		case plan.Move:
			mainTask[i] = add(i, x.rename(i, true)).id
		case plan.Import:
			mainTask[i] = add(i, x.importTask(i)).id
		case plan.Read:
			mainTask[i] = add(i, x.read(i)).id
		default:
			if c.MovedFrom != "" {
				renameTask[i] = add(i, x.rename(i, false)).id
			}
			mainTask[i] = add(i, x.createOrUpdate(i)).id
		}
	}
	for i := range x.p.Changes {
		c := &x.p.Changes[i]
		switch c.Action {
		case plan.NoOp:
			continue
		case plan.Create, plan.Update, plan.Replace, plan.Move, plan.Import, plan.Read:
			t := x.tasks[mainTask[i]]
			switch {
			case c.Action == plan.Replace && c.ReplaceOrder == plan.CreateBeforeDestroy:
				// The replacement first; the object goes after it.
				x.tasks[destroyTask[i]].deps = append(x.tasks[destroyTask[i]].deps, t.id)
				// An object an earlier replace deposed and left goes
				// before this one deposes another: state holds one a name.
				if j, ok := idx[plan.DeposedName(c.ResourceID)]; ok && x.p.Changes[j].Action == plan.Destroy {
					t.deps = append(t.deps, destroyTask[j])
				}
			case c.Action == plan.Replace:
				t.deps = append(t.deps, destroyTask[i])
			}
			if r, ok := renameTask[i]; ok {
				t.deps = append(t.deps, r)
				x.tasks[r].deps = append(x.tasks[r].deps, depTasks(x, idx, mainTask, c)...)
			}
			t.deps = append(t.deps, depTasks(x, idx, mainTask, c)...)
		}
		if c.Action == plan.Replace || c.Action == plan.Destroy || c.Action == plan.Forget {
			t := x.tasks[destroyTask[i]]
			for _, dep := range dependents[c.ResourceID] {
				j, ok := idx[dep]
				if !ok {
					continue
				}
				switch x.p.Changes[j].Action {
				case plan.Destroy, plan.Forget, plan.Replace:
					t.deps = append(t.deps, destroyTask[j])
				case plan.Update:
					// What stays must have left the object before it goes:
					// always for a create-before-destroy replace (its
					// updates move to the replacement, made first).
					cbd := c.Action == plan.Replace && c.ReplaceOrder == plan.CreateBeforeDestroy
					if cbd || (destroyAfterUpdates && c.Action != plan.Replace) {
						t.deps = append(t.deps, mainTask[j])
					}
				}
			}
		}
	}
	if x.e.opts.LevelBarrier {
		x.addBarriers(mainTask)
	}
	for _, t := range x.tasks {
		ci := x.owner[t.id]
		if ci < 0 {
			continue
		}
		id := t.id
		t.skip = func(cause error) { x.skipped(ci, id, cause) }
	}
}

// depTasks are the main tasks of the changes c depends on.
func depTasks(x *execution, idx map[string]int, mainTask map[int]int, c *plan.Change) []int {
	var out []int
	for _, d := range c.Dependencies {
		if j, ok := idx[d]; ok && x.p.Changes[j].Action != plan.Destroy && x.p.Changes[j].Action != plan.Forget {
			out = append(out, mainTask[j])
		}
	}
	return out
}

// addBarriers makes every create/update/replace wait for all changes of the
// lower levels, through one no-op task per level.
func (x *execution) addBarriers(mainTask map[int]int) {
	byLevel := map[int][]int{}
	maxLevel := -1
	for ci, tid := range mainTask {
		c := x.p.Changes[ci]
		if c.Action == plan.Destroy || c.Action == plan.Forget {
			continue
		}
		byLevel[c.Level] = append(byLevel[c.Level], tid)
		maxLevel = max(maxLevel, c.Level)
	}
	prev := -1
	for l := 0; l <= maxLevel; l++ {
		if prev >= 0 {
			for _, tid := range byLevel[l] {
				x.tasks[tid].deps = append(x.tasks[tid].deps, prev)
			}
		}
		if len(byLevel[l]) == 0 {
			continue
		}
		b := &task{id: len(x.tasks), deps: byLevel[l], run: func(context.Context) (func(context.Context) error, error) { return nil, nil }}
		x.tasks = append(x.tasks, b)
		x.owner = append(x.owner, -1)
		prev = b.id
	}
}

func hasCycle(tasks []*task) bool {
	indeg := make([]int, len(tasks))
	out := make([][]int, len(tasks))
	for _, t := range tasks {
		indeg[t.id] = len(t.deps)
		for _, d := range t.deps {
			out[d] = append(out[d], t.id)
		}
	}
	var q []int
	for i, d := range indeg {
		if d == 0 {
			q = append(q, i)
		}
	}
	seen := 0
	for len(q) > 0 {
		n := q[0]
		q = q[1:]
		seen++
		for _, m := range out[n] {
			if indeg[m]--; indeg[m] == 0 {
				q = append(q, m)
			}
		}
	}
	return seen != len(tasks)
}

func (x *execution) event(ci int, kind progress.Kind, err error) {
	c := &x.p.Changes[ci]
	ev := progress.Event{Kind: kind, Action: c.Action, Type: c.Type, Name: c.ResourceID, Err: err, Time: x.e.opts.Now()}
	x.mu.Lock()
	switch kind {
	case progress.Started:
		if _, ok := x.started[ci]; ok {
			x.mu.Unlock()
			return // second part of a replace
		}
		x.started[ci] = ev.Time
	case progress.Done, progress.Failed:
		ev.Elapsed = ev.Time.Sub(x.started[ci])
	}
	if r := x.live.Resources[c.ResourceID]; r != nil {
		ev.ID = r.ProviderID
	}
	x.mu.Unlock()
	x.e.opts.Hook.Event(ev)
}

func (x *execution) skipped(ci, taskID int, cause error) {
	c := &x.p.Changes[ci]
	var fd failedDep
	switch {
	case errors.As(cause, &fd) && x.owner[fd.id] < 0:
		cause = errors.New("a change of an earlier level failed")
	case errors.As(cause, &fd):
		failed := x.p.Changes[x.owner[fd.id]].ResourceID
		if failed == c.ResourceID {
			return // the create part of a replace whose destroy part failed
		}
		cause = fmt.Errorf("dependency %q failed", failed)
	case errors.Is(cause, context.Canceled):
		cause = errors.New("interrupted before it started")
	}
	x.mu.Lock()
	if _, ok := x.results[ci]; !ok {
		x.results[ci] = &ChangeResult{Action: c.Action, Type: c.Type, Name: c.ResourceID, Err: cause}
	}
	x.mu.Unlock()
	x.e.opts.Hook.Event(progress.Event{Kind: progress.Skipped, Action: c.Action, Type: c.Type, Name: c.ResourceID, Err: cause, Time: x.e.opts.Now()})
}

// collect fills res from the task errors and skips, in plan order.
func (x *execution) collect(res *Result, errs map[int]error) {
	failed := map[int]error{}
	for id, err := range errs {
		failed[x.owner[id]] = err
	}
	done := make([]bool, len(x.p.Changes)) // by change index: a replace has two tasks
	for _, ci := range x.owner {
		if ci < 0 || done[ci] {
			continue
		}
		done[ci] = true
		c := &x.p.Changes[ci]
		cr := ChangeResult{Action: c.Action, Type: c.Type, Name: c.ResourceID}
		if r := x.live.Resources[c.ResourceID]; r != nil {
			cr.ProviderID = r.ProviderID
		} else {
			cr.ProviderID = c.ProviderID
		}
		switch {
		case failed[ci] != nil:
			cr.Err = failed[ci]
			res.Failed = append(res.Failed, cr)
		case x.results[ci] != nil:
			cr.Err = x.results[ci].Err
			res.Skipped = append(res.Skipped, cr)
		default:
			res.Succeeded = append(res.Succeeded, cr)
		}
	}
}

// record makes a finished change durable (journal) and visible to the
// changes that depend on it (live state). It runs as a task's settle step:
// records waiting at the same time share the backend's group commit.
func (x *execution) record(ctx context.Context, op state.Op, name string, r *state.Resource) error {
	x.e.opts.Secrets.Add(appendSecrets(nil, r)...) // before anything can quote it
	e := state.Entry{
		Seq: x.seq.Add(1), BaseSerial: x.base.Metadata.Serial, Lineage: x.base.Metadata.Lineage,
		Op: op, Name: name, Resource: r,
	}
	if err := journalOf(ctx, x.e.backend).Append(ctx, e); err != nil {
		return fmt.Errorf("journal %s %q: %w", op, name, err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if op == state.OpDelete {
		delete(x.live.Resources, name)
	} else {
		x.live.Resources[name] = r
		delete(x.live.Interrupted, name) // the outcome of its create, if any
	}
	return nil
}

// settled wraps a record as a task's settle step that reports the change
// done (or failed) once it is durable.
func (x *execution) settled(ci int, record func(context.Context) error, done bool) func(context.Context) error {
	return func(ctx context.Context) error {
		if err := record(ctx); err != nil {
			x.event(ci, progress.Failed, err)
			return err
		}
		if done {
			x.event(ci, progress.Done, nil)
		}
		return nil
	}
}

func (x *execution) lookup(r value.Ref) (any, bool) {
	if r == value.Applying {
		return x.at, true // the apply's time: what timestamp() reads in a kyku.yaml
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.e.stateRead(x.live, x.data, r)
}

func (x *execution) createOrUpdate(ci int) func(context.Context) (func(context.Context) error, error) {
	return x.createPart(ci, true)
}

// createPart creates (or updates) the resource of change ci; done says
// whether that finishes the change (not the create part of a
// create-before-destroy replace: its destroy part comes after).
func (x *execution) createPart(ci int, done bool) func(context.Context) (func(context.Context) error, error) {
	return func(ctx context.Context) (func(context.Context) error, error) {
		c := &x.p.Changes[ci]
		x.event(ci, progress.Started, nil)
		record, err := x.doCreateOrUpdate(ctx, c)
		if err != nil {
			x.event(ci, progress.Failed, err)
			return nil, err
		}
		return x.settled(ci, record, done), nil
	}
}

// noDeposed refuses a create-before-destroy replace of name while state
// still holds an object an earlier replace deposed there (a plan that
// does not destroy it first: --target): deposing another would lose it.
func (x *execution) noDeposed(name string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if d := x.live.Resources[plan.DeposedName(name)]; d != nil {
		return fmt.Errorf("%s: an object an earlier replace deposed (id %s) is still in state: destroy it first (plan without --target), then replace; nothing was changed", name, d.ProviderID)
	}
	return nil
}

// conditions checks the preconditions (post false) or postconditions of
// resource cr with what the apply knows now: a failed one is the
// change's error.
func (x *execution) conditions(cr *config.Resource, post bool) error {
	if len(cr.Conditions) == 0 {
		return nil
	}
	var diags diag.Diagnostics
	checkConditions(&diags, cr, post, x.lookup)
	return diags.Err()
}

// doCreateOrUpdate makes the provider call and returns the step that
// records its result.
func (x *execution) doCreateOrUpdate(ctx context.Context, c *plan.Change) (func(context.Context) error, error) {
	cr := x.p.Config.Resource(c.ResourceID)
	if cr == nil {
		return nil, fmt.Errorf("%s %q is not in the plan's config", c.Type, c.ResourceID)
	}
	resolved, unknown, err := value.ResolveChecked(cr.Properties, x.lookup)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", c.Type, c.ResourceID, refErr(err, secretIn(x.p.SensitiveAttributes())))
	}
	if unknown {
		return nil, fmt.Errorf("%s %q: a referenced resource has no provider ID or output yet", c.Type, c.ResourceID)
	}
	props := resolved.(map[string]any)
	r := provider.Resource{Name: cr.Name, Type: cr.Type, CloudName: c.CloudName, Prefix: x.p.Prefix, Properties: props, Planned: toProvider(c.Planned)}
	if r.CloudName == "" {
		r.CloudName = cloudName(x.p.Prefix, cr.Name)
	}
	if err := x.conditions(cr, false); err != nil {
		return nil, err // nothing changed
	}
	if c.Action == plan.Replace && c.ReplaceOrder == plan.CreateBeforeDestroy {
		if err := x.noDeposed(c.ResourceID); err != nil {
			return nil, err
		}
	}
	if c.Action == plan.Update {
		if err := x.precheck(ctx, c, c.ResourceID); err != nil { // precheck.go
			return nil, err
		}
	}
	intent := c.Action != plan.Update && x.journalsIntent(cr.Type)
	if intent {
		if r.AnswerTo, r.AnswerNote, err = x.e.noteCreate(ctx, cr.Name, cr.Type); err != nil { // answers.go
			return nil, err
		}
		if err := x.intend(ctx, cr.Name, cr.Type); err != nil { // intent.go
			return nil, err
		}
	}
	ev := &progress.Event{Action: c.Action, Type: c.Type, Name: c.ResourceID}
	var obj provider.Object
	err = x.e.call(ctx, ev, func(ctx context.Context) error {
		var err error
		if c.Action == plan.Update {
			obj, err = x.e.provider.Update(ctx, c.ProviderID, r)
		} else {
			obj, err = x.e.provider.Create(ctx, r)
		}
		return err
	})
	var partial *provider.PartialError
	if errors.As(err, &partial) {
		// The object exists although the change failed: state keeps it,
		// now (the next run plans it from there).
		if rerr := x.record(ctx, state.OpPut, cr.Name, x.stateOf(ctx, cr, c, r, props, partial.Object)); rerr != nil {
			return nil, errors.Join(err, rerr)
		}
		return nil, err
	}
	if err != nil {
		if intent {
			if ierr := x.settleIntent(ctx, cr.Name, err); ierr != nil {
				return nil, errors.Join(err, ierr)
			}
		}
		return nil, err // the result and the progress line name the change
	}
	sr := x.stateOf(ctx, cr, c, r, props, obj)
	record := x.recordDone(cr, c, sr, r.AnswerTo != "")
	if len(cr.Conditions) == 0 {
		return record, nil
	}
	return func(ctx context.Context) error {
		if err := record(ctx); err != nil {
			return err
		}
		// What the object is now, recorded: its postconditions the
		// plan could not decide (they read what apply made) are
		// decided, as OpenTofu decides them after the change.
		return x.conditions(cr, true)
	}, nil
}

// recordDone is the step that records sr, what change c of cr made, in
// state (kept: its journal keeper kept the create's answer).
func (x *execution) recordDone(cr *config.Resource, c *plan.Change, sr *state.Resource, kept bool) func(context.Context) error {
	if c.Action == plan.Replace && c.ReplaceOrder == plan.CreateBeforeDestroy {
		// The object replaced stays in state, as deposed, until its
		// destroy part: recorded first, so that it is never lost.
		old := x.base.Resources[cr.Name]
		return func(ctx context.Context) error {
			if old != nil {
				dep := old.Clone()
				dep.Name = plan.DeposedName(cr.Name)
				if err := x.record(ctx, state.OpPut, dep.Name, dep); err != nil {
					return err
				}
			}
			return x.recordCreated(ctx, cr.Name, sr, kept)
		}
	}
	return func(ctx context.Context) error { return x.recordCreated(ctx, cr.Name, sr, kept) }
}

// recordCreated records sr, what a change made at name, then drops the
// answer its journal keeper kept, if any (kept).
func (x *execution) recordCreated(ctx context.Context, name string, sr *state.Resource, kept bool) error {
	if err := x.record(ctx, state.OpPut, name, sr); err != nil || !kept {
		return err
	}
	// The object is recorded: an answer left behind (its removal failed)
	// names no open intent, and the next fold removes it unused.
	_ = x.e.dropAnswer(ctx, name)
	return nil
}

// stateOf is the state of resource cr after its change c made obj.
func (x *execution) stateOf(ctx context.Context, cr *config.Resource, c *plan.Change, r provider.Resource, props map[string]any, obj provider.Object) *state.Resource {
	cloudName := obj.CloudName
	if cloudName == "" {
		cloudName = r.CloudName
	}
	sr := &state.Resource{
		Name: cr.Name, Type: cr.Type, CloudName: cloudName, ProviderID: obj.ID,
		Config: withoutWriteOnly(props, x.p.WriteOnly[cr.Name]), Outputs: obj.Outputs, Dependencies: c.Dependencies, Protect: cr.Protect,
		SkipDestroy: cr.SkipDestroy, Types: x.dynamicTypes(cr, props),
	}
	sr.Sensitive, sr.SensitiveWithin = x.e.secretAfter(ctx, cr.Type, c, x.base.Resources[cr.Name], props, obj.Outputs)
	// What it was applied from: the configuration as resolved now (the
	// plan may not have known every value), read back now.
	if b, ok := x.e.basisOf(x.p.Config, cr, props, x.at); ok {
		sr.Basis = b
	}
	recordStored(sr, obj)
	return sr
}

// dynamicTypes are the types of cr's attributes of any type
// (state.Resource.Types): those the expansion knew
// (config.Resource.DynamicTypes), and, for a list or a map read from
// what the plan made (props, the resolved configuration), its
// expression's now, with what apply made: OpenTofu's state records a
// list as a list where its value alone reads as a tuple.
func (x *execution) dynamicTypes(cr *config.Resource, props map[string]any) map[string]any {
	out := maps.Clone(cr.DynamicTypes)
	for _, name := range cr.DynamicArgs() {
		if _, known := out[name]; known {
			continue
		}
		switch props[name].(type) {
		case []any, map[string]any:
		default:
			continue // a primitive's type is its value's
		}
		te, ok := cr.Properties[name].(value.TypedExpr)
		if !ok {
			continue
		}
		if _, t, unknown, err := te.EvalTyped(x.lookup); err == nil && !unknown && t != nil {
			out = config.WithDynamicType(out, name, t)
		}
	}
	return out
}

func (x *execution) destroy(ci int) func(context.Context) (func(context.Context) error, error) {
	return x.destroyTask(ci, true)
}

// destroyTask destroys the object of change ci; done says whether that
// finishes the change (not the destroy part of a destroy-before-create
// replace: its create part comes after).
func (x *execution) destroyTask(ci int, done bool) func(context.Context) (func(context.Context) error, error) {
	return func(ctx context.Context) (func(context.Context) error, error) {
		c := &x.p.Changes[ci]
		x.event(ci, progress.Started, nil)
		if err := x.doDestroy(ctx, c); err != nil {
			x.event(ci, progress.Failed, err)
			return nil, err
		}
		name := c.ResourceID
		if c.Action == plan.Replace && c.ReplaceOrder == plan.CreateBeforeDestroy {
			name = plan.DeposedName(name) // the resource is its replacement now
		}
		record := func(ctx context.Context) error { return x.record(ctx, state.OpDelete, name, nil) }
		return x.settled(ci, record, done), nil
	}
}

// doDestroy deletes the cloud object (a forget only drops it from state).
func (x *execution) doDestroy(ctx context.Context, c *plan.Change) error {
	if c.Action == plan.Forget || c.Action == plan.Replace && c.ReplaceOrder == plan.ForgetThenCreate {
		return nil
	}
	typ := c.Type
	if c.PriorType != "" {
		typ = c.PriorType
	}
	cloudName, name := c.CloudName, c.ResourceID
	if c.Action == plan.Replace && c.ReplaceOrder == plan.CreateBeforeDestroy {
		// CloudName is the replacement's; the object is kept as deposed.
		cloudName, name = c.PriorCloudName, plan.DeposedName(c.ResourceID)
	}
	ev := &progress.Event{Action: c.Action, Type: typ, Name: c.ResourceID}
	x.mu.Lock()
	sr := x.live.Resources[name]
	x.mu.Unlock()
	if err := x.precheck(ctx, c, name); err != nil { // precheck.go
		return err
	}
	prior := c.Planned
	if c.PriorType != "" {
		prior = nil // the plan's prior state is not of the type destroyed
	}
	return x.e.deleteWith(ctx, ev, typ, c.ResourceID, cloudName, c.ProviderID, sr, prior) // the result and the progress line name the change
}
