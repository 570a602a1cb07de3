package engine

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// What a plan reads (PlanOptions.Refresh). By default (RefreshChanged)
// an object is read from the cloud and planned by its provider only when
// the change touches it: it is created, imported, moved, replaced,
// targeted, its type changed, it reads from an object this plan changes,
// or what it is planned from (state.Basis: its resolved configuration,
// its provider's configuration and version) differs from its last
// apply's. What touched objects read from is read too (and planned only
// when it drifted), as are the objects the configuration removes and
// every data source. Every other object is taken from state: a no-op
// marked NotRead, with no read and no provider call. Apply reads each
// object again just before changing it (precheck.go).
//
// A plan first predicts, from state alone, what it touches and reads all
// of that at once (predict); the walk level by level then decides each
// resource with the values planned so far, reading what the prediction
// missed (readLevel); a touched resource whose upstream was not read
// has the plan made again with it read (unreadUpstream).

// touched is why r is touched ("" when it is not): props are its
// properties resolved, unknown says some are not known yet; changed
// says which of its dependencies this plan changes.
func (x *planning) touched(r *config.Resource, props map[string]any, unknown bool, digested *state.Basis, changed func(string) bool) string {
	if why := x.forced(r); why != "" {
		return why
	}
	sr := x.st.Resources[r.Name]
	switch {
	case unknown:
		return "a value it reads is known only after apply"
	case sr.Basis == nil:
		return "no record of its last apply"
	}
	for _, d := range x.g.Deps(r.Name) {
		if changed(d) {
			return "reads from " + d + ", which this plan changes"
		}
	}
	if !x.sameBasis(r, props, digested) {
		return "changed since its last apply"
	}
	return ""
}

// sameBasis reports whether r, its properties resolved to props, is
// planned from what its last apply recorded. digested is the basis of
// props when settle made it already (nil: it is made here).
func (x *planning) sameBasis(r *config.Resource, props map[string]any, digested *state.Basis) bool {
	sr := x.st.Resources[r.Name]
	if sr == nil || sr.Basis == nil {
		return false
	}
	if digested != nil {
		return digested.Same(sr.Basis)
	}
	b, ok := x.e.basisOf(x.cfg, r, props, x.readAt)
	return ok && b.Same(sr.Basis)
}

// forced is why r is touched whatever its configuration ("" for none):
// created, imported, moved, replaced, targeted, of another type, gone,
// or every object read.
func (x *planning) forced(r *config.Resource) string {
	sr := x.st.Resources[r.Name]
	_, importing := x.imported[r.Name]
	switch {
	case x.opts.Refresh == RefreshAll:
		return "--refresh=all"
	case sr == nil || sr.ProviderID == "":
		return "created"
	case importing:
		return "imported"
	case x.movedFrom[r.Name] != "":
		return "moved"
	case x.tainted[r.Name]:
		return "tainted"
	case x.replace[r.Name]:
		return "--replace"
	case sr.Type != r.Type:
		return "type changed"
	case x.gone[r.Name]:
		return "gone"
	case x.targets != nil:
		return "--target"
	}
	return ""
}

// settle resolves, against state alone, the configuration's resources
// (not under RefreshAll): same holds those planned from what their last
// apply recorded, undecided those reading a data source, decided once
// it is read.
func (x *planning) settle() {
	x.same, x.undecided, x.memo = map[string]bool{}, map[string]bool{}, resolveMemo{}
	x.settleWhere(func(*config.Resource) bool { return true })
}

// settleWhere settles, as settle does, the resources of the configuration
// that pick selects (the auto-subnets, once injected): each resolved and
// digested on its own (on every core, settlepool.go), what each decided
// then kept in the configuration's order.
func (x *planning) settleWhere(pick func(*config.Resource) bool) {
	if x.opts.Refresh == RefreshAll {
		return
	}
	var rs []*config.Resource
	for _, r := range x.cfg.Resources {
		if !r.Data && pick(r) {
			rs = append(rs, r)
		}
	}
	settled := make([]settling, len(rs))
	eachIndex(len(rs), runtime.GOMAXPROCS(0), func(i int) { settled[i] = x.settleOne(rs[i]) })
	for i, r := range rs {
		s := settled[i]
		if s.res != nil {
			x.memo[r.Name] = s.res
		}
		switch {
		case s.undecided:
			x.undecided[r.Name] = true
		case s.same:
			x.same[r.Name] = true
		}
	}
}

// settling is what settle decided of one resource.
type settling struct {
	res             *resolution
	same, undecided bool
}

// settleOne resolves r against state alone: undecided when it reads a
// data source, same when it is planned from what its last apply had.
func (x *planning) settleOne(r *config.Resource) settling {
	var ds diag.Diagnostics
	res, props, unknown, ok := resolveRecorded(&ds, r, x.priorLookup)
	switch {
	case !ok:
		return settling{}
	case unknown && x.readsData(r):
		return settling{res: res, undecided: true}
	}
	if unknown {
		return settling{res: res}
	}
	sr := x.st.Resources[r.Name]
	if sr == nil || sr.Basis == nil {
		return settling{res: res}
	}
	b, ok := x.e.basisOf(x.cfg, r, props, x.readAt)
	if !ok {
		return settling{res: res}
	}
	res.basis = b
	return settling{res: res, same: b.Same(sr.Basis)}
}

// validate has the providers validate the configuration: every resource
// but those planned from what their last apply recorded, which their
// provider (of the same version) validated then; what the others refer
// to is given too, so that their references are checked against it.
func (x *planning) validate(ctx context.Context) error {
	if len(x.same) == 0 {
		return Validate(ctx, x.e.provider, x.cfg)
	}
	if err := CheckSupport(x.e.provider, x.cfg); err != nil {
		return err
	}
	give := map[string]bool{}
	for _, r := range x.cfg.Resources {
		if x.same[r.Name] {
			continue
		}
		give[r.Name] = true
		for _, ref := range value.Refs(r.Properties) {
			give[ref.Resource] = true
		}
		for _, d := range r.DependsOn {
			give[d] = true
		}
	}
	rest := make([]provider.Desired, 0, len(give))
	selfPlanned := false
	for _, r := range x.cfg.Resources {
		if give[r.Name] {
			rest = append(rest, desiredOf(r))
			selfPlanned = selfPlanned || x.e.provider.Schema(r.Type).OwnState
		}
	}
	if !selfPlanned {
		return nil
	}
	refused, err := x.e.provider.ValidateConfigs(ctx, rest)
	if err != nil {
		return fmt.Errorf("validate the configuration with its providers: %w", err)
	}
	return refusalsAndReads(ctx, x.e.provider, x.cfg, refused)
}

// changedHere reports whether this plan (so far) changes d.
func (x *planning) changedHere(d string) bool { return x.pending[d] || x.unknown[d] }

// predict is what the plan reads before planning: from state alone, the
// resources the change touches (and those reading from them), what they
// read from, and what the configuration removes. Nothing under
// RefreshNone; everything kept under RefreshAll (nil).
func (x *planning) predict() map[string]bool {
	want := map[string]bool{}
	switch x.opts.Refresh {
	case RefreshAll:
		return nil
	case RefreshNone:
		return want
	}
	own := map[string]bool{} // touched for a reason of their own
	var touched []string
	for _, r := range x.cfg.Resources {
		if r.Data || !x.keep(r.Name) {
			continue
		}
		if x.forced(r) != "" || !x.same[r.Name] && !x.undecided[r.Name] { // undecided: once the data sources are read
			own[r.Name] = true
			touched = append(touched, r.Name)
		}
	}
	for _, r := range x.cfg.Resources {
		if !r.Data && !own[r.Name] && x.keep(r.Name) && slices.ContainsFunc(x.g.Deps(r.Name), func(d string) bool { return own[d] }) {
			touched = append(touched, r.Name)
		}
	}
	for _, n := range touched {
		want[n] = true
		x.upstream(n, want)
	}
	for name := range x.st.Resources {
		if x.cfg.Resource(name) == nil && x.keep(name) {
			want[name] = true // removed: destroyed, or forgotten when gone
		}
	}
	return want
}

// upstream adds to want what name reads from, transitively.
func (x *planning) upstream(name string, want map[string]bool) {
	for _, d := range x.g.Deps(name) {
		if !want[d] {
			want[d] = true
			x.upstream(d, want)
		}
	}
}

// readsData reports whether r reads from a data source (before the
// graph is built).
func (x *planning) readsData(r *config.Resource) bool {
	isData := func(d string) bool {
		c := x.cfg.Resource(d)
		return c != nil && c.Data
	}
	if slices.ContainsFunc(r.DependsOn, isData) {
		return true
	}
	return slices.ContainsFunc(value.Refs(r.Properties), func(ref value.Ref) bool { return isData(ref.Resource) })
}

// priorLookup is what a reference reads in state alone (predict).
func (x *planning) priorLookup(r value.Ref) (any, bool) {
	if r.Attr == value.ObjectType {
		return x.e.objectType(r.Resource)
	}
	v, ok := x.priorValue(r)
	return x.e.withNulls(r, v, ok)
}

// priorValue is priorLookup but for the nulls withNulls fills in.
func (x *planning) priorValue(r value.Ref) (any, bool) {
	sr := x.st.Resources[r.Resource]
	if sr == nil || sr.ProviderID == "" {
		return nil, false
	}
	if x.e.ownState(sr.Type) {
		return plannedValue(sr.Outputs, r.Attr)
	}
	switch r.Attr {
	case "", "id":
		return sr.ProviderID, true
	case value.AllAttrs:
		return wholeObject(sr.ProviderID, sr.Config, sr.Outputs), true
	}
	v, ok := sr.Outputs[r.Attr]
	return v, ok
}

// wasRead reports whether the plan has name's object: read, found gone,
// or (RefreshNone) taken from state.
func (x *planning) wasRead(name string) bool {
	_, ok := x.objs[name]
	return ok || x.gone[name]
}

// readLevel reads, before the level's resources are planned, those of
// todo the change touches that were not read yet; under RefreshNone it
// takes them from state.
func (x *planning) readLevel(ctx context.Context, todo []*config.Resource) error {
	if x.opts.Refresh == RefreshAll {
		return nil
	}
	need := map[string]bool{}
	for _, r := range todo {
		sr := x.st.Resources[r.Name]
		if sr == nil || sr.ProviderID == "" || x.wasRead(r.Name) {
			continue
		}
		var ds diag.Diagnostics
		props, unknown, ok, kept := x.memo.take(&ds, r, x.lookup, nil)
		if !ok || x.touched(r, props, unknown, kept.basisOf(), x.changedHere) == "" {
			continue
		}
		if x.opts.Refresh == RefreshNone {
			x.objs[r.Name] = objectFromState(sr, x.e.ownState(sr.Type))
			continue
		}
		need[r.Name] = true
	}
	return x.readNames(ctx, need)
}

// readNames reads the objects of names from the cloud into objs and gone.
func (x *planning) readNames(ctx context.Context, names map[string]bool) error {
	if len(names) == 0 {
		return nil
	}
	objs, gone, err := x.e.discover(ctx, x.st, func(n string) bool { return names[n] }, x.slots)
	if err != nil {
		return err
	}
	x.took(objs, gone)
	return nil
}

// took adds what reads found, objects and those gone, to the plan's, and
// counts them read.
func (x *planning) took(objs map[string]provider.Object, gone map[string]bool) {
	maps.Copy(x.objs, objs)
	maps.Copy(x.gone, gone)
	x.reads += len(objs) + len(gone)
}

// objectFromState is sr's object as state has it (RefreshNone: no read).
func objectFromState(sr *state.Resource, own bool) provider.Object {
	o := provider.Object{ID: sr.ProviderID, CloudName: sr.CloudName, Properties: value.CopyMap(sr.Config), Outputs: sr.Outputs}
	if own {
		s := storedOf(sr)
		o.Stored, o.Properties = &s, sr.Outputs
	}
	return o
}

// asInState reports whether o, sr's object as read, is what state has:
// nothing drifted.
func (x *planning) asInState(sr *state.Resource, o provider.Object) bool {
	if x.e.ownState(sr.Type) {
		return o.Stored != nil && value.Equal(o.Outputs, sr.Outputs)
	}
	return (o.ID == "" || o.ID == sr.ProviderID) && value.Equal(merged(o.Properties, sr.Config), sr.Config) &&
		(o.Outputs == nil || value.Equal(o.Outputs, sr.Outputs))
}

// asBefore is the change of r when nothing it is planned from changed:
// a no-op taken from state, or (read, and found as state has it) from
// its read, without asking its provider. ok is false when r must be
// planned by its provider: touched, or drifted.
func (x *planning) asBefore(r *config.Resource, props map[string]any, unknown bool, digested *state.Basis, level int) (plan.Change, bool) {
	if x.touched(r, props, unknown, digested, x.changedHere) != "" {
		return plan.Change{}, false
	}
	sr := x.st.Resources[r.Name]
	o, read := x.objs[r.Name]
	if read && !x.asInState(sr, o) {
		return plan.Change{}, false // drifted: its provider plans it
	}
	extra := refSensitive(r.Properties, x.sensitive)
	ch := plan.Change{
		Action: plan.NoOp, ResourceID: r.Name, Type: r.Type, Level: level, Dependencies: x.g.Deps(r.Name),
		ProviderID: sr.ProviderID, CloudName: sr.CloudName,
		Sensitive: sortedSet(slices.Concat(r.SensitiveProps(), r.Sensitive, sr.Sensitive, extra)),
	}
	ch.SensitiveWithin = secretWithin(r, sr.Sensitive, sr.SensitiveWithin, extra, schemaSensitive(r.Type), unordered(r.Type))
	ch.SecretParts = secretWithin(r, nil, nil, extra, schemaSensitive(r.Type), unordered(r.Type))
	b := *sr.Basis
	ch.Basis = &b
	if read {
		ch.Basis.ReadAt = x.readAt
	} else {
		ch.NotRead = true
		t := sr.Basis.ReadAt
		ch.LastRead = &t
	}
	if x.e.ownState(r.Type) {
		mask := sortedSet(slices.Concat(ch.Sensitive, schemaSensitive(r.Type)))
		mask = sortedSet(slices.Concat(mask, echoes(mask, ch.SensitiveWithin, sr.Outputs)))
		ch.Planned = &plan.Planned{SchemaVersion: sr.SchemaVersion, Private: sr.Private, Sensitive: mask, Values: sr.Outputs}
		if read && o.Stored != nil {
			ch.Planned.SchemaVersion, ch.Planned.Private = o.Stored.SchemaVersion, o.Stored.Private
		}
	}
	return ch, true
}

// unreadUpstream is what the resources this plan touched read from,
// transitively, that it did not read: the plan is made again with them
// read.
func (x *planning) unreadUpstream() map[string]bool {
	if x.opts.Refresh != RefreshChanged {
		return nil
	}
	up := map[string]bool{}
	for name := range x.touchedNames {
		x.upstream(name, up)
	}
	need := map[string]bool{}
	for n := range up {
		sr := x.st.Resources[n]
		if cr := x.cfg.Resource(n); cr != nil && !cr.Data && sr != nil && sr.ProviderID != "" && !x.wasRead(n) && x.keep(n) {
			need[n] = true
		}
	}
	return need
}

// readsOf counts what the plan read of the objects it covers.
func (x *planning) readsOf() *plan.Reads {
	n := 0
	for name, sr := range x.st.Resources {
		if sr.ProviderID != "" && x.keep(name) {
			n++
		}
	}
	return &plan.Reads{Refresh: x.opts.Refresh.String(), Read: x.reads, Objects: n}
}

// basisPlanned is what touched resource r, its properties resolved to
// props, is planned from (nil while a value is not known): read now, or
// (RefreshNone) as last read.
func (x *planning) basisPlanned(r *config.Resource, props map[string]any) *state.Basis {
	b, ok := x.e.basisOf(x.cfg, r, props, x.readAt)
	if !ok {
		return nil
	}
	if x.opts.Refresh == RefreshNone {
		b.ReadAt = time.Time{}
		if sr := x.st.Resources[r.Name]; sr != nil && sr.Basis != nil {
			b.ReadAt = sr.Basis.ReadAt
		}
	}
	return b
}

// savedRefresh is the refresh mode a saved plan was made with: planned
// again at apply, it reads what it read (an unknown mode reads all).
func savedRefresh(p *plan.Plan) RefreshMode {
	if p.Reads == nil {
		return RefreshChanged
	}
	m, err := ParseRefreshMode(p.Reads.Refresh)
	if err != nil {
		return RefreshAll
	}
	return m
}

// markUnread marks ch, planned by its provider against state
// (RefreshNone), as not read.
func (x *planning) markUnread(ch *plan.Change) {
	sr := x.st.Resources[ch.ResourceID]
	if x.opts.Refresh != RefreshNone || sr == nil || sr.ProviderID == "" || ch.Action == plan.Import {
		return
	}
	ch.NotRead = true
	if sr.Basis != nil {
		t := sr.Basis.ReadAt
		ch.LastRead = &t
	}
}
