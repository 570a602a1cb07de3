package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/graph"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// Plan computes the changes that would make the cloud match cfg. It takes
// the state lock (to read a consistent state) and writes nothing: with no
// state yet, the plan records the deploy prefix it chose (StateExists
// false), and the apply of the plan creates the state with that prefix.
func (e *Engine) Plan(ctx context.Context, cfg *config.Config) (*plan.Plan, error) {
	return e.PlanWith(ctx, cfg, PlanOptions{})
}

// PlanWith is Plan with options (--target).
func (e *Engine) PlanWith(ctx context.Context, cfg *config.Config, opts PlanOptions) (*plan.Plan, error) {
	st, unlock, err := e.locked(ctx, "plan", false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	exists := st != nil
	if st, err = e.draft(st); err != nil {
		return nil, err
	}
	return e.plan(ctx, cfg, st, exists, opts)
}

// PlanDestroy computes a plan that destroys everything in state.
func (e *Engine) PlanDestroy(ctx context.Context) (*plan.Plan, error) {
	st, unlock, err := e.locked(ctx, "plan", false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if st == nil {
		return &plan.Plan{FormatVersion: plan.FormatVersion, Environment: e.opts.Env, Provider: e.provider.Name(), CreatedAt: e.opts.Now().UTC(), Destroy: true, Backend: e.describeBackend()}, nil
	}
	return e.planDestroy(ctx, st)
}

// Graph injects cfg's auto-subnets (zones come from the provider, asked
// only when some Vpc wants them) and returns its dependency graph with each
// resource's level (the seed's buildGraph). It is idempotent on an already
// prepared config, and needs no backend.
func (e *Engine) Graph(ctx context.Context, cfg *config.Config) (*graph.Graph, map[string]int, error) {
	if config.NeedsZones(cfg) { // one provider call saved when no Vpc asks for auto-subnets
		var zones []string
		err := e.call(ctx, nil, func(ctx context.Context) error {
			var err error
			zones, err = e.provider.Zones(ctx)
			return err
		})
		if err != nil {
			return nil, nil, fmt.Errorf("list zones: %w", err)
		}
		if err := config.InjectAutoSubnets(cfg, zones); err != nil {
			return nil, nil, err
		}
	}
	g := config.BuildGraph(cfg)
	levels, err := g.Levels()
	if err != nil {
		return nil, nil, err
	}
	return g, levels, nil
}

// describeBackend names the backend for a plan ("" without one: Graph).
func (e *Engine) describeBackend() string {
	if e.backend == nil {
		return ""
	}
	return e.backend.Describe()
}

// plan computes the plan of cfg against st; exists says whether st is
// stored (false: an in-memory draft, see draft).
func (e *Engine) plan(ctx context.Context, cfg *config.Config, st *state.File, exists bool, opts PlanOptions) (*plan.Plan, error) {
	e.learnOutputs(cfg, st.Outputs)
	// What the provider refuses is refused before any cloud call; the
	// auto-subnets the graph injects are checked once they exist.
	if err := Validate(ctx, e.provider, cfg); err != nil {
		return nil, err
	}
	hash := cfg.Hash()
	written := len(cfg.Resources)
	g, levels, err := e.Graph(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if len(cfg.Resources) != written {
		if err := CheckSupport(e.provider, cfg); err != nil {
			return nil, err
		}
	}
	if err := e.checkCloud(ctx, cfg); err != nil {
		return nil, err
	}
	// Moves rename state resources first (in a view: st is not changed),
	// so that everything below sees them by their new names.
	st, movedFrom, err := moved(cfg, st)
	if err != nil {
		return nil, err
	}
	targets, err := targetSet(opts.Targets, cfg, st, g.Deps)
	if err != nil {
		return nil, err
	}
	keep := func(name string) bool { return targets == nil || targets[name] }
	replace, err := replaceSet(opts.Replace, cfg)
	if err != nil {
		return nil, err
	}
	for name := range replace {
		if !keep(name) {
			return nil, fmt.Errorf("--replace %s: not among the resources --target plans", value.QuoteName(name))
		}
	}
	objs, gone, err := e.discover(ctx, st, keep)
	if err != nil {
		return nil, err
	}
	imported, err := e.imports(ctx, cfg, st, keep)
	if err != nil {
		return nil, err
	}
	created := opts.createdAt
	if created.IsZero() {
		created = e.opts.Now().UTC()
	}
	p := &plan.Plan{
		FormatVersion: plan.FormatVersion,
		Environment:   e.opts.Env,
		Provider:      e.provider.Name(),
		CreatedAt:     created,
		Levels:        levels,
		Lineage:       st.Metadata.Lineage,
		Serial:        st.Metadata.Serial,
		Prefix:        st.Metadata.Prefix,
		StateExists:   exists,
		ConfigHash:    hash,
		VariablesHash: cfg.VariablesHash(),
		SecretsHash:   cfg.SecretsHash(),
		Backend:       e.describeBackend(),
		Config:        cfg,
		Changes:       make([]plan.Change, 0, len(cfg.Resources)),
		Targets:       opts.Targets,
		Replace:       opts.Replace,
	}

	// Desired resources in level order, so that what a resource references
	// is decided before the resource itself.
	order, orderLevels := byLevel(cfg.Resources, levels)

	unknown := map[string]bool{}            // created or replaced: new ID known after apply
	pending := map[string]bool{}            // changed objects: a data source depending on one is read during apply
	planned := map[string]map[string]any{}  // self-planned resources' planned values
	sensitiveAttrs := map[string][]string{} // their (and data sources') sensitive attributes
	lookup := func(r value.Ref) (any, bool) {
		if vals, ok := planned[r.Resource]; ok {
			return plannedValue(vals, r.Attr)
		}
		if vals, ok := p.Data[r.Resource]; ok {
			return plannedValue(vals, r.Attr)
		}
		if unknown[r.Resource] {
			return nil, false
		}
		if im, ok := imported[r.Resource]; ok {
			if r.Attr == "" || r.Attr == "id" {
				return im.obj.ID, true
			}
			v, ok := im.obj.Outputs[r.Attr]
			return v, ok
		}
		sr := st.Resources[r.Resource]
		if sr == nil || sr.ProviderID == "" {
			return nil, false
		}
		if r.Attr == "" || r.Attr == "id" {
			return providerID(sr, objs), true
		}
		if o, ok := objs[r.Resource]; ok {
			if v, ok := o.Outputs[r.Attr]; ok {
				return v, true
			}
		}
		v, ok := sr.Outputs[r.Attr]
		return v, ok
	}

	var diags diag.Diagnostics
	var ahead map[string]*planResult // this level's resources, planned together
	for i, r := range order {
		if i == 0 || orderLevels[i] != orderLevels[i-1] {
			ahead = e.planAhead(ctx, order, orderLevels, i, keep, replace, lookup, sensitiveAttrs, st, objs, gone, imported, g)
		}
		if !keep(r.Name) {
			continue
		}
		if r.Data {
			props, unresolved, ok := resolveProps(&diags, r, lookup, secretIn(sensitiveAttrs))
			if !ok {
				continue
			}
			deps := g.Deps(r.Name)
			reason := readReason(unresolved, deps, pending)
			s, ok, err := e.planData(ctx, &diags, r, props, reason, p)
			if err != nil {
				return nil, err
			}
			// What the schema marks, and what the configuration makes
			// secret: an attribute set from a sensitive value reads back
			// as one.
			sensitiveAttrs[r.Name] = sortedSet(slices.Concat(s, r.Sensitive, refSensitive(r.Properties, sensitiveAttrs)))
			if ok && reason != "" {
				p.Changes = append(p.Changes, readChange(r, orderLevels[i], deps, reason, p.Data[r.Name], sensitiveAttrs[r.Name]))
			}
			continue
		}
		res := ahead[r.Name]
		if res.err != nil {
			return nil, res.err
		}
		diags = append(diags, res.diags...)
		if !res.ok {
			continue
		}
		ch := res.ch
		if ch.Planned != nil {
			sensitiveAttrs[r.Name] = ch.Planned.Sensitive
			planned[r.Name] = ch.Planned.Values
		}
		sr := st.Resources[r.Name]
		im, importing := imported[r.Name]
		o := im.obj
		if importing {
			ch.ImportID, ch.Imported = im.id, importedObject(o)
		}
		if from := movedFrom[r.Name]; from != "" && sr != nil {
			ch.MovedFrom = from
			if ch.Action == plan.NoOp {
				ch.Action = plan.Move
			}
			if ch.Action != plan.Replace && ch.Action != plan.Create {
				if name := e.renamed(r.Type, st.Metadata.Prefix, r.Name, ch.CloudName); name != ch.CloudName {
					ch.PriorCloudName, ch.CloudName = ch.CloudName, name
				}
			}
		}
		switch {
		case replace[r.Name] && importing:
			diags.Add(r.Pos, "resource %s: --replace asks to replace what this plan imports (import:); apply the import first", value.QuoteName(r.Name))
		case ch.Action == plan.Replace && r.Protect && ch.Reason == replaceRequested:
			diags.Add(r.Pos, "resource %s is protected (protect: true) and cannot be replaced, although --replace asks for it", value.QuoteName(r.Name))
		case ch.Action == plan.Replace && r.Protect:
			diags.Add(r.Pos, "resource %s is protected (protect: true) and cannot be replaced; changed: %s", value.QuoteName(r.Name), forcing(ch.Properties))
		}
		e.checkName(&diags, r, ch)
		if ch.Action == plan.Create || ch.Action == plan.Replace {
			unknown[r.Name] = true
		}
		if changesObject(&ch) {
			pending[r.Name] = true
		}
		p.Changes = append(p.Changes, ch)
	}

	e.orderReplaces(&diags, cfg, st, p.Changes)
	refuseSensitiveOutputs(&diags, cfg, sensitiveAttrs)
	for _, o := range cfg.Outputs { // a path that does not apply to what it reads
		if _, _, err := value.ResolveChecked(o.Value, lookup); err != nil {
			diags.Add(o.Pos, "output %q: %s", o.Name, refErrText(err, secretIn(sensitiveAttrs)))
		}
	}

	// What is in state but no longer in config is destroyed (or forgotten
	// when it is already gone), in reverse dependency order.
	destroys := e.destroyChanges(st, func(name string) bool { return cfg.Resource(name) != nil || !keep(name) }, objs, gone)
	e.refuseKeptDeletes(&diags, cfg, st, slices.Concat(p.Changes, destroys))
	checkCloudNames(&diags, cfg, st, p.Changes)
	for _, ch := range destroys {
		if ch.Action == plan.Destroy && st.Resources[ch.ResourceID].Protect {
			diags.Add(diag.Pos{}, "resource %s is protected (protect: true) and cannot be destroyed; set protect: false and apply first", value.QuoteName(ch.ResourceID))
		}
	}
	if err := diags.Err(); err != nil {
		return nil, err
	}
	p.OutputChanges = outputChanges(cfg, st, lookup)
	sortChanges(p.Changes)
	p.Changes = append(p.Changes, destroys...)
	p.Secrets = stateSecrets(st, p.Changes)
	if err := e.ownTypes(ctx, p); err != nil {
		return nil, err
	}
	e.owners(p)
	if err := e.writeOnly(ctx, p); err != nil {
		return nil, err
	}
	p.Count()
	if err := guardDestroyAll(p, opts.AllowDestroyAll); err != nil {
		return nil, err
	}
	return p, nil
}

// ownTypes records in p.OwnTypes the provider's own name of every type of
// its changes and configuration that the configuration names otherwise
// (provider.Schemas.OwnType).
func (e *Engine) ownTypes(ctx context.Context, p *plan.Plan) error {
	types := map[string]bool{}
	for _, c := range p.Changes {
		types[c.Type] = true
		types[c.PriorType] = true
	}
	if p.Config != nil {
		for _, r := range p.Config.Resources {
			types[r.Type] = true
		}
	}
	delete(types, "")
	for _, typ := range slices.Sorted(maps.Keys(types)) {
		own, err := e.provider.OwnType(ctx, typ)
		if err != nil {
			return err
		}
		if own != "" {
			if p.OwnTypes == nil {
				p.OwnTypes = map[string]string{}
			}
			p.OwnTypes[typ] = own
		}
	}
	return nil
}

// owners records in each change of p the provider that owns its type
// (plan.Change.Provider).
func (e *Engine) owners(p *plan.Plan) {
	for i := range p.Changes {
		c := &p.Changes[i]
		c.Provider = e.provider.Schema(c.Type).Provider
	}
}

func (e *Engine) planDestroy(ctx context.Context, st *state.File) (*plan.Plan, error) {
	p := &plan.Plan{
		FormatVersion: plan.FormatVersion,
		Environment:   e.opts.Env,
		Provider:      e.provider.Name(),
		CreatedAt:     e.opts.Now().UTC(),
		Lineage:       st.Metadata.Lineage,
		Serial:        st.Metadata.Serial,
		Prefix:        st.Metadata.Prefix,
		StateExists:   true,
		Destroy:       true,
		Backend:       e.describeBackend(),
	}
	p.Changes = e.destroyChanges(st, func(string) bool { return false }, nil, nil)
	p.OutputChanges = outputChanges(nil, st, nil)
	p.Secrets = stateSecrets(st, p.Changes)
	var diags diag.Diagnostics
	for _, ch := range p.Changes {
		if st.Resources[ch.ResourceID].Protect {
			diags.Add(diag.Pos{}, "resource %s is protected (protect: true) and cannot be destroyed; set protect: false and apply first", value.QuoteName(ch.ResourceID))
		}
	}
	if err := diags.Err(); err != nil {
		return nil, err
	}
	if err := e.ownTypes(ctx, p); err != nil {
		return nil, err
	}
	e.owners(p)
	p.Count()
	return p, nil
}

// stateSecrets are the texts st holds as secret (Resource.Sensitive, in
// what was applied and in what the cloud reported) of the objects changes
// destroy or replace: plan.Plan.Secrets.
func stateSecrets(st *state.File, changes []plan.Change) []string {
	var out []string
	for _, c := range changes {
		if c.Action != plan.Destroy && c.Action != plan.Forget && c.Action != plan.Replace {
			continue
		}
		sr := st.Resources[c.ResourceID]
		if sr == nil {
			continue
		}
		for _, name := range sr.Sensitive {
			out = value.AppendLeaves(out, sr.Config[name])
			out = value.AppendLeaves(out, sr.Outputs[name])
		}
	}
	return out
}

// destroyChanges returns destroy (or forget) changes for every state
// resource that keep says is not kept, ordered by reverse level of the
// state's own dependency graph, then name. objs, when given, holds what
// discovery read: a stale provider ID it resolved by name is destroyed by
// the object's real ID.
func (e *Engine) destroyChanges(st *state.File, keep func(string) bool, objs map[string]provider.Object, gone map[string]bool) []plan.Change {
	var victims []string
	for name := range st.Resources {
		if !keep(name) {
			victims = append(victims, name)
		}
	}
	if len(victims) == 0 {
		return nil
	}
	slices.SortFunc(victims, value.CompareNames)
	g := graph.NewSized(len(st.Resources))
	for _, name := range st.Names() {
		g.AddNode(name)
		for _, d := range st.Resources[name].Dependencies {
			if st.Resources[d] != nil {
				g.AddEdge(name, d)
			}
		}
	}
	levels, err := g.Levels()
	if err != nil {
		levels = map[string]int{}
	}
	out := make([]plan.Change, 0, len(victims))
	for _, name := range victims {
		sr := st.Resources[name]
		ch := plan.Change{
			Action: plan.Destroy, ResourceID: name, Type: sr.Type, Level: levels[name],
			ProviderID: sr.ProviderID, CloudName: sr.CloudName, Dependencies: sr.Dependencies,
		}
		if gone[name] {
			ch.Action, ch.Reason = plan.Forget, "already gone from the cloud"
		}
		adopt(&ch, sr, objs)
		out = append(out, ch)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Level != out[j].Level {
			return out[i].Level > out[j].Level
		}
		return value.CompareNames(out[i].ResourceID, out[j].ResourceID) < 0
	})
	return out
}

// sortChanges orders changes by level, then name. Built from byLevel's
// order over name-sorted resources they already are: checking costs O(n),
// a stable sort of thousands of changes far more.
func sortChanges(cs []plan.Change) {
	less := func(a, b plan.Change) int {
		if a.Level != b.Level {
			return a.Level - b.Level
		}
		return value.CompareNames(a.ResourceID, b.ResourceID)
	}
	if !slices.IsSortedFunc(cs, less) {
		slices.SortStableFunc(cs, less)
	}
}

// byLevel returns rs stably ordered by level (a counting sort, O(n)), and
// the level of each: levels is looked up once per resource, not once per
// pass (a lookup in a map of thousands of names is a cache miss).
func byLevel(rs []*config.Resource, levels map[string]int) ([]*config.Resource, []int) {
	lv := make([]int, len(rs))
	top := 0
	for i, r := range rs {
		lv[i] = levels[r.Name]
		top = max(top, lv[i])
	}
	start := make([]int, top+2)
	for _, l := range lv {
		start[l+1]++
	}
	for l := 1; l < len(start); l++ {
		start[l] += start[l-1]
	}
	out := make([]*config.Resource, len(rs))
	outLevels := make([]int, len(rs))
	for i, r := range rs {
		l := lv[i]
		out[start[l]], outLevels[start[l]] = r, l
		start[l]++
	}
	return out, outLevels
}

func forcing(pcs []plan.PropChange) string {
	s := ""
	for _, pc := range pcs {
		if pc.ForcesReplace {
			if s != "" {
				s += ", "
			}
			s += pc.Path
		}
	}
	return s
}

// discover reads, in parallel, every state resource that has a provider ID
// (first in bulk when the provider can, see bulkRead; a stale ID is
// resolved by name, see read). "Not found" means gone; any other error
// aborts, naming the resource.
func (e *Engine) discover(ctx context.Context, st *state.File, keep func(string) bool) (map[string]provider.Object, map[string]bool, error) {
	todo := make([]*state.Resource, 0, len(st.Resources))
	for n, r := range st.Resources { // any order: the workers read in parallel
		if r.ProviderID != "" && (keep == nil || keep(n)) {
			todo = append(todo, r)
		}
	}
	objs := make(map[string]provider.Object, len(todo))
	todo, err := e.bulkRead(ctx, st, todo, objs) // what a bulk list missed is read one by one
	if err != nil {
		return nil, nil, err
	}
	gone := map[string]bool{}
	var mu sync.Mutex
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// Parallelism workers take the next name until none is left (a pool,
	// not a goroutine per resource).
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(e.opts.Parallelism, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(todo) {
					return
				}
				sr := todo[i]
				o, err := e.read(ctx, sr)
				mu.Lock()
				switch {
				case err == nil:
					objs[sr.Name] = o
				case isNotFound(err):
					gone[sr.Name] = true
				default:
					cancel(fmt.Errorf("read %s %q (id %s): %w", sr.Type, sr.Name, sr.ProviderID, err))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, nil, err
	}
	return objs, gone, nil
}
