package engine

import (
	"context"
	"math"
	"slices"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/fanout"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// planResources plans the configuration's resources level by level, so
// that what a resource references is decided before the resource: each
// level's resources together (planAhead), then, in order, its data
// sources read and every change added to the plan.
func (x *planning) planResources(ctx context.Context) error {
	order, levels := byLevel(x.cfg.Resources, x.levels)
	var ahead map[string]*planResult // this level's resources, planned together
	for i, r := range order {
		if i == 0 || levels[i] != levels[i-1] {
			if err := x.joinReads(levels[i]); err != nil {
				return err
			}
			ahead = x.planAhead(ctx, order, levels, i)
		}
		if !x.keep(r.Name) {
			continue
		}
		if r.Data {
			if err := x.planDataSource(ctx, r, levels[i]); err != nil {
				return err
			}
			continue
		}
		res := ahead[r.Name]
		if res.err != nil {
			return res.err
		}
		x.diags = append(x.diags, res.diags...)
		if res.touched {
			x.touchedNames[r.Name] = true
		}
		if res.ok {
			x.add(r, res.ch)
		}
	}
	return x.joinReads(math.MaxInt)
}

// planDataSource reads data source r now, or plans its read during apply
// (a plan.Read change at level).
func (x *planning) planDataSource(ctx context.Context, r *config.Resource, level int) error {
	props, unresolved, ok := resolveProps(&x.diags, r, x.lookup, secretIn(x.sensitive))
	if !ok {
		return nil
	}
	checkConditions(&x.diags, r, false, x.lookup)
	deps := x.g.Deps(r.Name)
	reason := readReason(unresolved, deps, x.pending)
	if !takeSlot(ctx, x.slots) {
		return ctx.Err()
	}
	var failed diag.Diagnostics
	s, ok, err := x.e.planData(ctx, &failed, r, props, reason, x.p)
	if err == nil && !ok && r.CheckNested && reason == "" {
		// A check block's data source that fails to read warns, as
		// OpenTofu warns (its assertions are unknown), and is read again
		// during apply.
		x.warnings = append(x.warnings, failed.Error())
		failed = nil
		reason = readCheckNestedFailed
		s, ok, err = x.e.planData(ctx, &failed, r, props, reason, x.p)
	}
	giveSlot(x.slots)
	x.diags = append(x.diags, failed...)
	if err != nil {
		return err
	}
	// What the schema marks, and what the configuration makes secret: an
	// attribute set from a sensitive value reads back as one.
	x.sensitive[r.Name] = sortedSet(slices.Concat(s, r.Sensitive, refSensitive(r.Properties, x.sensitive)))
	if ok && reason == "" && r.CheckNested {
		reason = readCheckNested // read now, and again during apply
	}
	if ok && reason != "" {
		x.p.Changes = append(x.p.Changes, readChange(r, level, deps, reason, x.p.Data[r.Name], x.sensitive[r.Name]))
	}
	if ok {
		checkConditions(&x.diags, r, true, x.lookup)
	}
	return nil
}

// add adds resource r's change ch to the plan: what an import read, the
// move it makes (a rename where the provider renames), what protect: and
// the cloud's name rules refuse, and what its dependents learn of it.
func (x *planning) add(r *config.Resource, ch plan.Change) {
	if ch.Planned != nil {
		x.sensitive[r.Name] = ch.Planned.Sensitive
		x.planned[r.Name] = ch.Planned.Values
	}
	sr := x.st.Resources[r.Name]
	im, importing := x.imported[r.Name]
	if importing {
		ch.ImportID, ch.Imported = im.id, importedObject(im.obj)
	}
	if from := x.movedFrom[r.Name]; from != "" && sr != nil {
		ch.MovedFrom = from
		if ch.Action == plan.NoOp {
			ch.Action = plan.Move
		}
		if ch.Action != plan.Replace && ch.Action != plan.Create {
			if name := x.e.renamed(r.Type, x.st.Metadata.Prefix, r.Name, ch.CloudName); name != ch.CloudName {
				ch.PriorCloudName, ch.CloudName = ch.CloudName, name
			}
		}
	}
	switch {
	case x.replace[r.Name] && importing:
		x.diags.Add(r.Pos, "resource %s: --replace asks to replace what this plan imports (import:); apply the import first", value.QuoteName(r.Name))
	case ch.Action == plan.Replace && r.Protect && r.SkipDestroy:
		// forgotten, then made again: nothing prevent_destroy protects is destroyed
	case ch.Action == plan.Replace && r.Protect && r.Pos.InTerraformFile():
		x.diags.Add(r.Pos, "Resource instance cannot be destroyed: Resource instance %s has prevent_destroy set, but the plan calls for it to be destroyed (to replace it: %s). %s", r.Name, replaceCause(ch), disableOrExclude(r.Name))
	case ch.Action == plan.Replace && r.Protect && ch.Reason == replaceRequested:
		x.diags.Add(r.Pos, "resource %s is protected (protect: true) and cannot be replaced, although --replace asks for it", value.QuoteName(r.Name))
	case ch.Action == plan.Replace && r.Protect:
		x.diags.Add(r.Pos, "resource %s is protected (protect: true) and cannot be replaced; changed: %s", value.QuoteName(r.Name), forcing(ch.Properties))
	}
	x.e.checkName(&x.diags, r, ch)
	if ch.Action == plan.Create || ch.Action == plan.Replace {
		x.unknown[r.Name] = true
	}
	if changesObject(&ch) {
		x.pending[r.Name] = true
	}
	x.p.Changes = append(x.p.Changes, ch)
	checkConditions(&x.diags, r, true, x.lookup)
}

// forcing lists the paths of pcs that force a replace.
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

// planResult is one resource's change as planAhead made it; ok is false
// when its references could not be resolved (diags say why).
type planResult struct {
	ch      plan.Change
	diags   diag.Diagnostics
	err     error
	ok      bool
	touched bool // planned by its provider (reads.go)
}

// planAhead plans, Parallelism at once, the resources of the level that
// starts at order[from]: they depend only on lower levels, already
// planned, so their references resolve now, and their providers are asked
// together (one call at a time each would leave a provider waiting on
// Kyku and Kyku on it). planResources then takes their results in order,
// so the plan is the same whatever order the calls finish in.
func (x *planning) planAhead(ctx context.Context, order []*config.Resource, levels []int, from int) map[string]*planResult {
	var todo []*config.Resource
	for j := from; j < len(order) && levels[j] == levels[from]; j++ {
		if r := order[j]; !r.Data && x.keep(r.Name) {
			todo = append(todo, r)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	out := make(map[string]*planResult, len(todo))
	results := make([]planResult, len(todo))
	for k, r := range todo {
		out[r.Name] = &results[k]
	}
	if err := x.readLevel(ctx, todo); err != nil {
		for k := range results {
			results[k].err = err
		}
		return out
	}
	fanout.Each(len(todo), x.e.opts.Parallelism, func(k int) {
		results[k] = x.planLevelResource(ctx, todo[k], levels[from])
	})
	return out
}

// planLevelResource resolves r's references and plans its change.
func (x *planning) planLevelResource(ctx context.Context, r *config.Resource, level int) planResult {
	var res planResult
	desired, unknown, ok, kept := x.memo.take(&res.diags, r, x.lookup, secretIn(x.sensitive))
	res.ch = plan.Change{ResourceID: r.Name, Type: r.Type, Level: level, Dependencies: x.g.Deps(r.Name)}
	if res.ok = ok; !ok {
		return res
	}
	checkConditions(&res.diags, r, false, x.lookup)
	if ch, same := x.asBefore(r, desired, unknown, kept.basisOf(), level); same {
		res.ch = ch
		return res
	}
	if kept != nil {
		desired = kept.handOver() // the plan keeps and changes them
	}
	res.touched = true
	res.ch.Basis = x.basisPlanned(r, desired)
	trigger := x.triggered(r)
	in := changeInput{r: r, props: desired, extra: refSensitive(r.Properties, x.sensitive), prefix: x.st.Metadata.Prefix, replace: x.replace[r.Name] || trigger != ""}
	if sr := x.st.Resources[r.Name]; sr != nil {
		in.was, in.wasWithin = sr.Sensitive, sr.SensitiveWithin
	}
	if !takeSlot(ctx, x.slots) {
		res.err = ctx.Err()
		return res
	}
	res.err = x.planResource(ctx, &res.diags, &res.ch, in)
	giveSlot(x.slots)
	x.markUnread(&res.ch)
	if trigger != "" && !x.replace[r.Name] && res.ch.Action == plan.Replace && res.ch.Reason == replaceRequested {
		res.ch.Reason = "replacement triggered by " + trigger + " (lifecycle replace_triggered_by)"
	}
	if x.tainted[r.Name] && res.ch.Action == plan.Replace && res.ch.Reason == replaceRequested {
		res.ch.Reason = replaceTainted
	}
	return res
}

// triggered names the first of r's replace_triggered_by entries that this
// plan changes ("" for none): an instance it creates, updates or
// replaces, or an attribute whose value it changes (one it creates has
// every attribute new), as OpenTofu has it. They are r's dependencies,
// planned at lower levels already.
func (x *planning) triggered(r *config.Resource) string {
	for _, t := range r.ReplaceTriggeredBy {
		for i := range x.p.Changes {
			c := &x.p.Changes[i]
			if c.ResourceID != t.Resource || (c.Action != plan.Create && c.Action != plan.Update && c.Action != plan.Replace) {
				continue
			}
			if t.Attr == "" || c.Action == plan.Create {
				if t.Attr != "" {
					return t.Resource + "." + t.Attr + t.Path
				}
				return t.Resource
			}
			if pathChanged(c.Properties, t.Attr, value.Ref{Path: t.Path}.Steps()) {
				return t.Resource + "." + t.Attr + t.Path
			}
		}
	}
	return ""
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

// replaceCause says why change ch replaces its object: --replace, or the
// properties whose change forces it.
func replaceCause(ch plan.Change) string {
	switch ch.Reason {
	case replaceRequested:
		return "--replace asks for it"
	case replaceTainted:
		return "it is tainted"
	}
	return "changed: " + forcing(ch.Properties)
}
