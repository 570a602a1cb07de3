package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// Moves, imports and targets: what the configuration's moved and import
// entries and a plan's --target ask of the engine.

// importRead is an object an import entry names, as the plan read it.
type importRead struct {
	id  string // the entry's ID, as written: what the object was read by
	obj provider.Object
}

// imports reads the objects the config's import entries name whose
// destination is not in st yet. An entry whose destination is in state is
// done (ignored): for a Terraform provider's type whatever its ID (its
// import ID need not be the object's ID; OpenTofu ignores it too), for
// Kyku's own types when the ID is the one state has; another ID is an
// error. So are an ID the cloud does not know and an object state
// already manages.
func (e *Engine) imports(ctx context.Context, cfg *config.Config, st *state.File, keep func(string) bool) (map[string]importRead, error) {
	if len(cfg.Imports) == 0 {
		return nil, nil
	}
	managed := map[string]string{}
	for n, r := range st.Resources {
		managed[r.Type+"\x00"+r.ProviderID] = n
	}
	var diags diag.Diagnostics
	out := map[string]importRead{}
	for _, im := range cfg.Imports {
		if !keep(im.To) {
			continue
		}
		r := cfg.Resource(im.To)
		if sr := st.Resources[im.To]; sr != nil {
			if sr.ProviderID != im.ID && !e.ownState(sr.Type) {
				diags.Add(im.Pos, "import %s (id %s): %s is in state already with id %s; remove the entry, or forget it first with kyku state rm %s", im.To, im.ID, im.To, sr.ProviderID, im.To)
			}
			continue
		}
		if other := managed[r.Type+"\x00"+im.ID]; other != "" {
			diags.Add(im.Pos, "import %s (id %s): state manages that %s already as %s", im.To, im.ID, r.Type, value.QuoteName(other))
			continue
		}
		o, err := e.readImport(ctx, r.Type, im.ID)
		if err != nil {
			diags.Add(im.Pos, "import %s: %v", im.To, err)
			continue
		}
		out[im.To] = importRead{id: im.ID, obj: o}
	}
	if err := diags.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// readImport reads the object to import; "not found" is a plain error.
func (e *Engine) readImport(ctx context.Context, typ, id string) (provider.Object, error) {
	if !e.provider.ValidID(typ, id) {
		return provider.Object{}, fmt.Errorf("%q is not a %s provider ID for a %s", id, e.provider.Name(), typ)
	}
	var o provider.Object
	err := e.call(ctx, nil, func(ctx context.Context) error {
		var err error
		o, err = e.provider.Import(ctx, typ, id)
		return err
	})
	switch {
	case isNotFound(err):
		return provider.Object{}, fmt.Errorf("%s has no %s with id %s", e.provider.Name(), typ, id)
	case err != nil:
		return provider.Object{}, fmt.Errorf("read %s %s: %w", typ, id, err)
	}
	if o.ID == "" {
		o.ID = id
	}
	return o, nil
}

// ErrTargetAndExclude refuses a plan given both targets and exclusions,
// as OpenTofu refuses -target beside -exclude.
var ErrTargetAndExclude = errors.New("--target and --exclude: the target and exclude planning options are mutually-exclusive; each plan must use either only the target options or only the exclude options")

// targetSet is the set of names a --target plan covers: every target
// (a name with instances stands for all of them, an interrupted create's
// open intent among them), and everything the configured ones depend on;
// or, for an --exclude plan, every name of the configuration and the
// state but the excluded ones and what depends on them. nil means
// everything.
func targetSet(targets, exclude []string, cfg *config.Config, st *state.File, deps func(string) []string) (map[string]bool, error) {
	if len(targets) > 0 && len(exclude) > 0 {
		return nil, ErrTargetAndExclude
	}
	if len(exclude) > 0 {
		return excludeSet(exclude, cfg, st, deps)
	}
	if len(targets) == 0 {
		return nil, nil
	}
	queue, err := matchAddresses("--target", targets, cfg, st)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if set[n] {
			continue
		}
		set[n] = true
		if cfg.Resource(n) != nil {
			queue = append(queue, deps(n)...)
		}
	}
	return set, nil
}

// excludeSet is the set of names an --exclude plan covers (targetSet):
// what the configuration and the state name, but the excluded addresses'
// resources and every configured resource depending on one of them,
// through whatever it depends on, as OpenTofu's -exclude.
func excludeSet(exclude []string, cfg *config.Config, st *state.File, deps func(string) []string) (map[string]bool, error) {
	matched, err := matchAddresses("--exclude", exclude, cfg, st)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, r := range cfg.Resources {
		out[r.Name] = true
	}
	for n := range st.Resources {
		out[n] = true
	}
	for n := range st.Interrupted {
		out[n] = true
	}
	// OpenTofu's graph knows what depends on a resource, not on one of
	// its instances: excluding an instance excludes what depends on any.
	dependents := map[string][]string{}
	for _, r := range cfg.Resources {
		for _, d := range deps(r.Name) {
			dependents[value.BaseName(d)] = append(dependents[value.BaseName(d)], r.Name)
		}
	}
	excluded := map[string]bool{}
	for queue := matched; len(queue) > 0; {
		n := queue[0]
		queue = queue[1:]
		if excluded[n] {
			continue
		}
		excluded[n] = true
		delete(out, n)
		queue = append(queue, dependents[value.BaseName(n)]...)
	}
	return out, nil
}

// matchAddresses are the names of the configuration and the state that
// addresses (of flag: --target, --exclude) stand for: each address itself
// (a resource, an instance, an interrupted create's open intent) and its
// members (members); an address that names nothing is an error.
func matchAddresses(flag string, addrs []string, cfg *config.Config, st *state.File) ([]string, error) {
	var queue []string
	var unknown []string
	for _, t := range addrs {
		a, ok := value.ParseAddress(t)
		if !ok || a.Kind == value.AllIndex {
			return nil, fmt.Errorf("%s %q is not a resource address (name, name[0] or name[\"key\"])", flag, t)
		}
		name := a.String()
		found := false
		_, open := st.Interrupted[name]
		if cfg.Resource(name) != nil || st.Resources[name] != nil || open {
			found = true
			queue = append(queue, name)
		}
		if in := members(name, a.Kind); in != nil {
			for _, r := range cfg.Resources {
				if in(r.Name) {
					found = true
					queue = append(queue, r.Name)
				}
			}
			for n := range st.Resources {
				if in(n) {
					found = true
					queue = append(queue, n)
				}
			}
			for n := range st.Interrupted {
				if in(n) {
					found = true
					queue = append(queue, n)
				}
			}
		}
		if !found {
			unknown = append(unknown, t)
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("%s %s: not in the configuration or the state", flag, strings.Join(unknown, ", "))
	}
	return queue, nil
}

// members says which names a target address stands for besides itself:
// a resource's instances (name[…]), or, for a Terraform module's address
// (module.net, module.net["a"]), every resource in it; nil when none.
func members(name string, kind value.IndexKind) func(string) bool {
	parts := strings.Split(value.BaseName(name), ".")
	if len(parts) >= 2 && parts[len(parts)-2] == "module" {
		return func(n string) bool {
			return strings.HasPrefix(n, name+".") || (kind == value.NoIndex && strings.HasPrefix(n, name+"["))
		}
	}
	if kind == value.NoIndex {
		return func(n string) bool { return strings.HasPrefix(n, name+"[") }
	}
	return nil
}

// replaceSet is the resources names (PlanOptions.Replace) asks to
// replace: each an address of a managed resource of cfg, or a name with
// instances (all of them). Anything else is an error naming it.
func replaceSet(names []string, cfg *config.Config) (map[string]bool, error) {
	if len(names) == 0 {
		return nil, nil
	}
	set := map[string]bool{}
	for _, n := range names {
		a, ok := value.ParseAddress(n)
		if !ok || a.Kind == value.AllIndex {
			return nil, fmt.Errorf("--replace %q is not a resource address (name, name[0] or name[\"key\"])", n)
		}
		name := a.String()
		var found []*config.Resource
		if r := cfg.Resource(name); r != nil {
			found = append(found, r)
		} else if a.Kind == value.NoIndex {
			for _, r := range cfg.Resources {
				if strings.HasPrefix(r.Name, name+"[") {
					found = append(found, r)
				}
			}
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("--replace %s: not a resource of the configuration%s", value.QuoteName(name), nameHint(name, configNames(cfg)))
		}
		for _, r := range found {
			if r.Data {
				return nil, fmt.Errorf("--replace %s: a data source is read, not replaced", value.QuoteName(r.Name))
			}
			set[r.Name] = true
		}
	}
	return set, nil
}

// replaceRequested is the reason a change replaced by --replace shows.
const replaceRequested = "replacement requested (--replace)"

// replaceTainted is the reason a change replacing a tainted object shows.
const replaceTainted = "tainted, so it must be replaced (OpenTofu marked it: its create failed part way)"

// taintedIn are the resources of cfg whose objects in a Terraform state
// OpenTofu marked tainted (a create that failed): a plan replaces them,
// as OpenTofu's does.
func (e *Engine) taintedIn(cfg *config.Config) map[string]bool {
	tl, ok := e.backend.(interface{ Tainted() []string })
	if !ok {
		return nil
	}
	var out map[string]bool
	for _, name := range tl.Tainted() {
		if cfg.Resource(name) == nil {
			continue // not configured: destroyed anyway
		}
		if out == nil {
			out = map[string]bool{}
		}
		out[name] = true
	}
	return out
}

// cloudName is the cloud name Kyku gives a new object: the deploy prefix
// and the resource's address in a form every cloud accepts.
func cloudName(prefix, name string) string {
	return prefix + "-" + value.SafeName(name)
}

// checkCloudNames refuses a create whose cloud name an object in state
// already has: the provider's idempotent create would take that object
// over.
func checkCloudNames(diags *diag.Diagnostics, cfg *config.Config, st *state.File, changes []plan.Change) {
	var taken map[string]string
	for _, ch := range changes {
		if ch.Action != plan.Create {
			continue
		}
		if taken == nil {
			taken = make(map[string]string, len(st.Resources))
			for n, r := range st.Resources {
				if r.CloudName != "" {
					taken[r.Type+"\x00"+r.CloudName] = n
				}
			}
		}
		if other := taken[ch.Type+"\x00"+ch.CloudName]; other != "" && other != ch.ResourceID {
			pos := diag.Pos{}
			if r := cfg.Resource(ch.ResourceID); r != nil {
				pos = r.Pos
			}
			diags.Add(pos, "resource %s would be created with the cloud name %q, which %s in state already has; to keep that object, add a moved entry (from: %s, to: %q)", value.QuoteName(ch.ResourceID), ch.CloudName, value.QuoteName(other), other, ch.ResourceID)
		}
	}
}

// rename returns how a move's change is named in the cloud: the new cloud
// name when the provider renames objects of typ, else the current one.
func (e *Engine) renamed(typ, prefix, to, current string) string {
	if e.provider.Schema(typ).Renames && current != "" {
		return cloudName(prefix, to)
	}
	return current
}

// journalMoves renames in state, durably (a journal entry each), every
// resource p moves, before any other change runs; it returns the state
// the rest of the apply starts from and the last journal sequence number
// used (seq: the last one used before it). A moved resource keeps its
// cloud object, ID and cloud name (a provider that renames objects
// renames it afterwards, see rename).
func (e *Engine) journalMoves(ctx context.Context, st *state.File, p *plan.Plan, seq int64) (*state.File, int64, error) {
	next := st
	for _, c := range p.Changes {
		if c.MovedFrom == "" {
			continue
		}
		if next == st {
			next = st.Clone()
		}
		if err := next.Move(c.MovedFrom, c.ResourceID); err != nil {
			return nil, 0, fmt.Errorf("apply: %w", err)
		}
		seq++
		entry := state.Entry{
			Seq: seq, BaseSerial: st.Metadata.Serial, Lineage: st.Metadata.Lineage,
			Op: state.OpMove, Name: c.ResourceID, From: c.MovedFrom,
		}
		if err := journalOf(ctx, e.backend).Append(ctx, entry); err != nil {
			return nil, 0, fmt.Errorf("journal move %q to %q: %w", c.MovedFrom, c.ResourceID, err)
		}
		// A move across types (movesType) holds the object as its new
		// type from the same moment: journaled before anything else runs,
		// so that a crash never leaves an address holding another type.
		if p.Config == nil {
			continue
		}
		sr := next.Resources[c.ResourceID]
		if cr := p.Config.Resource(c.ResourceID); cr != nil && sr.Type != cr.Type && movesType(sr.Type, cr.Type) {
			moved := nullToTerraformData(*sr)
			next.Resources[c.ResourceID] = &moved
			seq++
			entry := state.Entry{
				Seq: seq, BaseSerial: st.Metadata.Serial, Lineage: st.Metadata.Lineage,
				Op: state.OpPut, Name: c.ResourceID, Resource: &moved,
			}
			if err := journalOf(ctx, e.backend).Append(ctx, entry); err != nil {
				return nil, 0, fmt.Errorf("journal move %q to %q: %w", c.MovedFrom, c.ResourceID, err)
			}
		}
	}
	return next, seq, nil
}

// rename is the task of a moved resource: its provider gives it its new
// cloud name where it renames objects of its type, and marks it with its
// new Kyku name (done reports the change finished: a move with nothing
// else to do); a provider's Rename that has nothing to do (a Terraform
// provider's) leaves the object as it is: the state moved already.
func (x *execution) rename(ci int, done bool) func(context.Context) (func(context.Context) error, error) {
	return func(ctx context.Context) (func(context.Context) error, error) {
		c := &x.p.Changes[ci]
		x.event(ci, progress.Started, nil)
		cr := x.p.Config.Resource(c.ResourceID)
		if cr == nil {
			err := fmt.Errorf("%s %q is not in the plan's config", c.Type, c.ResourceID)
			x.event(ci, progress.Failed, err)
			return nil, err
		}
		resolved, unknown, err := value.ResolveChecked(cr.Properties, x.lookup)
		if err != nil {
			err = fmt.Errorf("%s %q: %w", c.Type, c.ResourceID, refErr(err, secretIn(x.p.SensitiveAttributes())))
			x.event(ci, progress.Failed, err)
			return nil, err
		}
		if unknown {
			err := fmt.Errorf("%s %q: a referenced resource has no provider ID or output yet", c.Type, c.ResourceID)
			x.event(ci, progress.Failed, err)
			return nil, err
		}
		r := provider.Resource{Name: cr.Name, Type: cr.Type, CloudName: c.CloudName, Prefix: x.p.Prefix, Properties: resolved.(map[string]any)}
		ev := &progress.Event{Action: c.Action, Type: c.Type, Name: c.ResourceID}
		var obj provider.Object
		err = x.e.call(ctx, ev, func(ctx context.Context) error {
			var err error
			obj, err = x.e.provider.Rename(ctx, c.ProviderID, r)
			return err
		})
		if err != nil {
			x.event(ci, progress.Failed, err)
			return nil, err
		}
		x.mu.Lock()
		cur := x.live.Resources[c.ResourceID]
		var sr *state.Resource
		if cur != nil {
			sr = cur.Clone()
		}
		x.mu.Unlock()
		if sr == nil {
			err := fmt.Errorf("%s %q is not in state after its move", c.Type, c.ResourceID)
			x.event(ci, progress.Failed, err)
			return nil, err
		}
		sr.CloudName = c.CloudName
		if obj.CloudName != "" {
			sr.CloudName = obj.CloudName
		}
		if obj.Outputs != nil {
			sr.Outputs = obj.Outputs
		}
		record := func(ctx context.Context) error { return x.record(ctx, state.OpPut, c.ResourceID, sr) }
		return x.settled(ci, record, done), nil
	}
}

// importTask records in state the object the plan read for an import
// (never reading it again: its ID need not be the one it was imported
// by), then, when the plan found it differs from the configuration,
// updates it to match.
func (x *execution) importTask(ci int) func(context.Context) (func(context.Context) error, error) {
	return func(ctx context.Context) (func(context.Context) error, error) {
		c := &x.p.Changes[ci]
		x.event(ci, progress.Started, nil)
		fail := func(err error) (func(context.Context) error, error) {
			x.event(ci, progress.Failed, err)
			return nil, err
		}
		cr := x.p.Config.Resource(c.ResourceID)
		if cr == nil {
			return fail(fmt.Errorf("%s %q is not in the plan's config", c.Type, c.ResourceID))
		}
		if c.Imported == nil {
			return fail(fmt.Errorf("%s %q: the plan holds no object to import", c.Type, c.ResourceID))
		}
		sr := importedResource(cr, c.Imported, c.Dependencies, c.Sensitive)
		record := func(ctx context.Context) error { return x.record(ctx, state.OpPut, c.ResourceID, sr) }
		if len(c.Properties) == 0 {
			return x.settled(ci, record, true), nil
		}
		// Adopted first: an update that fails leaves the object managed.
		if err := record(ctx); err != nil {
			return fail(err)
		}
		u := *c
		u.Action = plan.Update
		update, err := x.doCreateOrUpdate(ctx, &u)
		if err != nil {
			return fail(err)
		}
		return x.settled(ci, update, true), nil
	}
}

// importedResource is the state of an imported object: what the cloud
// holds is what was last applied. What is secret of it is what the
// configuration makes secret (sensitive: its plan's; else its own), what
// Kyku's schema of its type and its provider mark.
func importedResource(cr *config.Resource, o *plan.Object, deps, sensitive []string) *state.Resource {
	return &state.Resource{
		Name: cr.Name, Type: cr.Type, CloudName: o.CloudName, ProviderID: o.ID,
		Config: value.CopyMap(o.Properties), Outputs: value.CopyMap(o.Outputs),
		Dependencies: append([]string(nil), deps...), Protect: cr.Protect, SkipDestroy: cr.SkipDestroy,
		Sensitive:     sortedSet(slices.Concat(sensitive, cr.SensitiveProps(), o.Sensitive)),
		SchemaVersion: o.SchemaVersion, Private: slices.Clone(o.Private),
	}
}

// importedObject is what a plan keeps of o, an object an import read.
func importedObject(o provider.Object) *plan.Object {
	io := &plan.Object{ID: o.ID, CloudName: o.CloudName, Properties: o.Properties, Outputs: o.Outputs}
	if o.Stored != nil {
		io.SchemaVersion, io.Private, io.Sensitive = o.Stored.SchemaVersion, o.Stored.Private, o.Stored.Sensitive
	}
	return io
}
