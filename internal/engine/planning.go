package engine

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/graph"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// planning is one plan in the making (as OpenTofu's plan context), its
// steps as methods: check the configuration, choose what to plan, read
// the cloud, start the plan, plan the resources level by level
// (planlevels.go), refuse what apply could not carry out and finish the
// plan (planfinish.go).
type planning struct {
	e    *Engine
	cfg  *config.Config
	st   *state.File // with the configuration's moves applied (a view)
	opts PlanOptions
	hash string // of the configuration as written, before auto-subnets
	// secretsHash is the configuration's SecretsHash, as planned ("" until
	// known: check takes it with hash when no auto-subnets are injected)
	secretsHash string

	g         *graph.Graph
	levels    map[string]int
	movedFrom map[string]string          // new name → the name moved from
	targets   map[string]bool            // what --target plans; nil: everything
	replace   map[string]bool            // what --replace asks to replace, and what is tainted
	tainted   map[string]bool            // what OpenTofu marked tainted (taintedIn), --replace aside
	objs      map[string]provider.Object // state's objects as discovery read them
	gone      map[string]bool            // state's objects gone from the cloud
	imported  map[string]importRead      // objects import entries found
	readAt    time.Time                  // when the plan read the cloud
	reads     int                        // objects read from the cloud (reads.go)

	p     *plan.Plan
	diags diag.Diagnostics
	// warnings are what the plan warns of besides the configuration's
	// and the check blocks' assertions: a check block's data source that
	// failed to read.
	warnings []string
	// What the resources planned so far decided, by name.
	unknown      map[string]bool           // created or replaced: new ID known after apply
	pending      map[string]bool           // changed: a data source depending on one is read during apply
	planned      map[string]map[string]any // planned values of a provider's own state
	sensitive    map[string][]string       // their (and data sources') sensitive attributes
	touchedNames map[string]bool           // planned by their providers, not taken as before (reads.go)
	// Against state alone (settle, reads.go): what is planned from what
	// its last apply had, and what waits for the data sources it reads.
	same, undecided map[string]bool
	memo            resolveMemo // settle's resolutions (resolvememo.go)
	// ahead are the reads made while the levels are planned (read);
	// slots bound the plan's provider operations at Parallelism while
	// they and the provider's plans run at once.
	ahead *readsAhead
	slots chan struct{}
}

func newPlanning(e *Engine, cfg *config.Config, st *state.File, opts PlanOptions) *planning {
	return &planning{
		e: e, cfg: cfg, st: st, opts: opts,
		unknown: map[string]bool{}, pending: map[string]bool{},
		planned: map[string]map[string]any{}, sensitive: map[string][]string{}, touchedNames: map[string]bool{},
		slots: make(chan struct{}, max(e.opts.Parallelism, 1)),
	}
}

// again clears what planning the resources decided, to plan them again
// (reads.go: with more of the cloud read).
func (x *planning) again() {
	x.diags = nil
	x.unknown, x.pending = map[string]bool{}, map[string]bool{}
	x.planned, x.sensitive, x.touchedNames = map[string]map[string]any{}, map[string][]string{}, map[string]bool{}
}

// check refuses what the provider refuses before any cloud call, builds
// the dependency graph (auto-subnets injected, and checked once they
// exist) and asks the cloud about what it offers.
func (x *planning) check(ctx context.Context) error {
	x.e.learnAttrNames(ctx, x.cfg)
	x.e.learnOutputs(x.cfg, x.st.Outputs)
	x.settle()
	if err := x.validate(ctx); err != nil { // reads.go: what did not change since its last apply was validated then
		return err
	}
	// The configuration's digest is of it as written: taken here when
	// auto-subnets will change it (Graph), else while the cloud is read
	// (read: both digests in one pass). SecretsHash is of the
	// configuration as planned.
	if config.NeedsZones(x.cfg) {
		x.hash, _ = x.cfg.Hashes()
	}
	written := len(x.cfg.Resources)
	var err error
	if x.g, x.levels, err = x.e.Graph(ctx, x.cfg); err != nil {
		return err
	}
	if len(x.cfg.Resources) != written {
		if err := CheckSupport(x.e.provider, x.cfg); err != nil {
			return err
		}
		x.settleWhere(func(r *config.Resource) bool { return r.AutoFrom != "" }) // the injected auto-subnets: unchanged ones are not read
	}
	return x.e.checkCloud(ctx, x.cfg)
}

// choose renames state's resources as the moves say (in a view: the
// state read is not changed), so that every step after sees the new
// names, and decides what --target and --replace plan.
func (x *planning) choose(context.Context) error {
	var err error
	if x.st, x.movedFrom, err = moved(x.cfg, x.st); err != nil {
		return err
	}
	if x.targets, err = targetSet(x.opts.Targets, x.opts.Exclude, x.cfg, x.st, x.g.Deps); err != nil {
		return err
	}
	if x.replace, err = replaceSet(x.opts.Replace, x.cfg); err != nil {
		return err
	}
	for name := range x.replace {
		if !x.keep(name) {
			return fmt.Errorf("--replace %s: not among the resources --target (or --exclude) leaves to plan", value.QuoteName(name))
		}
	}
	for name := range x.e.taintedIn(x.cfg) {
		if x.replace[name] || !x.keep(name) {
			continue // asked for anyway, or left out by --target
		}
		if x.replace == nil {
			x.replace = map[string]bool{}
		}
		if x.tainted == nil {
			x.tainted = map[string]bool{}
		}
		x.replace[name], x.tainted[name] = true, true
	}
	return nil
}

// read reads the objects import entries name, and begins reading state's
// objects from the cloud: those the change touches (reads.go), or every
// one or none as PlanOptions.Refresh says, lowest level first, while the
// resources are planned (planResources waits for each level's: joinReads).
func (x *planning) read(ctx context.Context) error {
	var err error
	x.readAt = x.e.opts.Now().UTC()
	if x.imported, err = x.e.imports(ctx, x.cfg, x.st, x.keep); err != nil {
		return err
	}
	keep := x.keep
	if want := x.predict(); want != nil {
		keep = func(n string) bool { return want[n] && x.keep(n) }
	}
	x.objs, x.gone = map[string]provider.Object{}, map[string]bool{}
	x.ahead = x.e.readAhead(ctx, x.st, keep, x.levelOf, x.slots)
	if x.hash == "" { // not taken before auto-subnets (check): taken while the reads run
		x.hash, x.secretsHash = x.cfg.Hashes()
	}
	return nil
}

// levelOf is name's level in the graph; math.MaxInt for what the
// configuration no longer has (its read is needed only once every level
// is planned).
func (x *planning) levelOf(name string) int {
	if l, ok := x.levels[name]; ok {
		return l
	}
	return math.MaxInt
}

// joinReads waits for the reads begun ahead of level and those below it
// (math.MaxInt: all of them, which ends them) and takes what they read.
func (x *planning) joinReads(level int) error {
	if x.ahead == nil {
		return nil
	}
	objs, gone, err := x.ahead.await(level)
	if err != nil {
		return err
	}
	x.took(objs, gone)
	if level == math.MaxInt {
		x.stopReads()
	}
	return nil
}

// stopReads ends the reads begun ahead, if any still run.
func (x *planning) stopReads() {
	if x.ahead != nil {
		x.ahead.stop()
		x.ahead = nil
	}
}

// start begins the plan: what it is of, and against which state.
func (x *planning) start(exists bool) {
	created := x.opts.createdAt
	if created.IsZero() {
		created = x.opts.Timestamp.UTC()
	}
	if created.IsZero() {
		created = x.readAt // when the plan read the cloud: its time
	}
	if x.secretsHash == "" {
		x.secretsHash = x.cfg.SecretsHash()
	}
	x.p = &plan.Plan{
		FormatVersion: plan.FormatVersion,
		Environment:   x.e.opts.Env,
		Provider:      x.e.provider.Name(),
		CreatedAt:     created,
		Levels:        x.levels,
		Lineage:       x.st.Metadata.Lineage,
		Serial:        x.st.Metadata.Serial,
		Prefix:        x.st.Metadata.Prefix,
		StateExists:   exists,
		ConfigHash:    x.hash,
		VariablesHash: x.cfg.VariablesHash(),
		SecretsHash:   x.secretsHash,
		Backend:       x.e.describeBackend(),
		Config:        x.cfg,
		Changes:       make([]plan.Change, 0, len(x.cfg.Resources)),
		Targets:       x.opts.Targets,
		Exclude:       x.opts.Exclude,
		Replace:       x.opts.Replace,
	}

}

// keep reports whether the plan covers resource name (--target,
// --exclude).
func (x *planning) keep(name string) bool { return x.targets == nil || x.targets[name] }

// lookup is what a reference reads at plan: a planned value, a data
// source's value, nothing yet for what is created or replaced, else what
// the cloud (or an import, or state) holds.
func (x *planning) lookup(r value.Ref) (any, bool) {
	if r.Attr == value.ObjectType {
		return x.e.objectType(r.Resource)
	}
	v, ok := x.lookupValue(r)
	return x.e.withNulls(r, v, ok)
}

// lookupValue is lookup but for the nulls withNulls fills in.
func (x *planning) lookupValue(r value.Ref) (any, bool) {
	if vals, ok := x.planned[r.Resource]; ok {
		return plannedValue(vals, r.Attr)
	}
	if vals, ok := x.p.Data[r.Resource]; ok {
		return plannedValue(vals, r.Attr)
	}
	if x.unknown[r.Resource] {
		return nil, false
	}
	if im, ok := x.imported[r.Resource]; ok {
		switch r.Attr {
		case "", "id":
			return im.obj.ID, true
		case value.AllAttrs:
			return wholeObject(im.obj.ID, im.obj.Properties, im.obj.Outputs), true
		}
		v, ok := im.obj.Outputs[r.Attr]
		return v, ok
	}
	sr := x.st.Resources[r.Resource]
	if sr == nil || sr.ProviderID == "" {
		return nil, false
	}
	switch r.Attr {
	case "", "id":
		return providerID(sr, x.objs), true
	case value.AllAttrs:
		if o, ok := x.objs[r.Resource]; ok {
			return wholeObject(providerID(sr, x.objs), sr.Config, o.Properties, o.Outputs), true
		}
		return wholeObject(sr.ProviderID, sr.Config, sr.Outputs), true
	}
	if o, ok := x.objs[r.Resource]; ok {
		if v, ok := o.Outputs[r.Attr]; ok {
			return v, true
		}
	}
	v, ok := sr.Outputs[r.Attr]
	return v, ok
}
