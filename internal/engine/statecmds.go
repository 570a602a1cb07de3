package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/suggest"
	"github.com/kyku/action/internal/value"
)

// Repairing state by hand (kyku import, kyku state mv, kyku state rm):
// each takes the lock, backs the state up and writes it once (serial + 1).
// None touches a cloud object.

// StateChange is what a state repair did.
type StateChange struct {
	Names        []string // the resources it changed (their new names)
	SerialBefore int64
	SerialAfter  int64
	BackupKey    string
}

// ImportResult is what Import recorded.
type ImportResult struct {
	StateChange
	Type, ProviderID, CloudName string
}

// Import records the cloud object id as resource name of cfg (a resource
// or an instance in the configuration): the object is read (so an ID the
// provider cannot find is an error) and what it holds becomes what was
// last applied, so the next plan shows a no-op or the update that makes it
// match the configuration. A name already in state, or an object state
// manages under another name, is an error, except a name whose object in
// state a create-before-destroy replace was replacing when its create was
// interrupted: that object is deposed, as the create would have left it,
// and the next apply destroys it.
func (e *Engine) Import(ctx context.Context, cfg *config.Config, name, id string) (*ImportResult, error) {
	if err := whole(cfg); err != nil {
		return nil, err
	}
	a, ok := value.ParseAddress(name)
	if !ok || a.Kind == value.AllIndex {
		return nil, fmt.Errorf("import: %q is not a resource address (name, name[0] or name[\"key\"])", name)
	}
	name = a.String()
	r := cfg.Resource(name)
	if r == nil {
		return nil, fmt.Errorf("import: %s is not in the configuration of %s%s", value.QuoteName(name), envLabel(cfg.Environment), nameHint(name, configNames(cfg)))
	}
	st, unlock, err := e.locked(ctx, "import", true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var depose bool // the object in state is the one a replace's interrupted create replaces (intentreplace.go)
	if st != nil {
		if depose, err = replacedByInterrupted(st, name); err != nil {
			return nil, err
		}
		for n, sr := range st.Resources {
			if sr.Type == r.Type && sr.ProviderID == id {
				return nil, fmt.Errorf("import: state manages %s %s already as %s", r.Type, id, value.QuoteName(n))
			}
		}
	}
	o, err := e.readImport(ctx, r.Type, id)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", name, err)
	}
	g, _, err := e.Graph(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if st, err = e.ensure(ctx, st, ""); err != nil {
		return nil, err
	}
	sc, err := e.rewrite(ctx, st, func(next *state.File) ([]string, error) {
		if depose {
			deposeFor(next, name)
		}
		next.Resources[name] = importedResource(r, importedObject(o), g.Deps(name), nil)
		delete(next.Interrupted, name) // the object an interrupted create made, if any (intent.go)
		return []string{name}, nil
	})
	if err != nil {
		return nil, err
	}
	return &ImportResult{StateChange: *sc, Type: r.Type, ProviderID: o.ID, CloudName: o.CloudName}, nil
}

// StateMove renames from to to in state (and every dependency on it); the
// cloud object keeps its ID and name. A from without an index that names
// instances in state (web[0], web[1]) moves them all to to[0], to[1]. The
// open intent of an interrupted create of from moves with it, or alone
// when from has no object in state.
func (e *Engine) StateMove(ctx context.Context, from, to string) (*StateChange, error) {
	fa, ok1 := value.ParseAddress(from)
	ta, ok2 := value.ParseAddress(to)
	if !ok1 || !ok2 || fa.Kind == value.AllIndex || ta.Kind == value.AllIndex {
		return nil, fmt.Errorf("state mv: want two resource addresses (name, name[0] or name[\"key\"]), got %q and %q", from, to)
	}
	from, to = fa.String(), ta.String()
	if from == to {
		return nil, fmt.Errorf("state mv: %q and %q are the same", from, to)
	}
	return e.repair(ctx, "state mv", func(next *state.File) ([]string, error) {
		if next.Resources[from] != nil {
			return []string{to}, next.Move(from, to)
		}
		if _, ok := next.Interrupted[from]; ok && next.Resources[to] == nil {
			// An interrupted create's intent, no object in state: it
			// moves alone (intentmoves.go).
			return []string{to}, next.MoveIntent(from, to)
		}
		insts := instancesOf(next, from)
		if len(insts) == 0 || ta.Kind != value.NoIndex {
			return nil, fmt.Errorf("state mv: %s is not in state%s", value.QuoteName(from), nameHint(from, next.Names()))
		}
		var moved []string
		for _, n := range insts {
			dst := to + strings.TrimPrefix(n, from)
			if err := next.Move(n, dst); err != nil {
				return nil, fmt.Errorf("state mv: %w", err)
			}
			moved = append(moved, dst)
		}
		return moved, nil
	})
}

// StateRemove forgets names (a name without an index that names instances
// forgets them all): they leave state, their cloud objects stay.
func (e *Engine) StateRemove(ctx context.Context, names ...string) (*StateChange, error) {
	return e.repair(ctx, "state rm", func(next *state.File) ([]string, error) {
		var gone []string
		for _, n := range names {
			a, ok := value.ParseAddress(n)
			if !ok || a.Kind == value.AllIndex {
				return nil, fmt.Errorf("state rm: %q is not a resource address", n)
			}
			n = a.String()
			match := selected(next, n)
			if len(match) == 0 {
				return nil, fmt.Errorf("state rm: %s is not in state%s", value.QuoteName(n), nameHint(n, next.Names()))
			}
			for _, m := range match {
				delete(next.Resources, m)
				gone = append(gone, m)
			}
		}
		return gone, nil
	})
}

// repair runs change on a copy of the locked state and writes it.
func (e *Engine) repair(ctx context.Context, op string, change func(*state.File) ([]string, error)) (*StateChange, error) {
	st, unlock, err := e.locked(ctx, op, true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if st == nil {
		return nil, fmt.Errorf("%s: there is no state in %s", op, e.backend.Describe())
	}
	return e.rewrite(ctx, st, change)
}

// rewrite backs st up, applies change to a copy and writes it.
func (e *Engine) rewrite(ctx context.Context, st *state.File, change func(*state.File) ([]string, error)) (*StateChange, error) {
	next := st.Clone()
	names, err := change(next)
	if err != nil {
		return nil, err
	}
	key, err := e.backend.Backup(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("back up state: %w", err)
	}
	next.Metadata.Serial = st.Metadata.Serial + 1
	if err := e.backend.Write(context.WithoutCancel(ctx), next, statemgr.WriteOptions{}); err != nil {
		return nil, fmt.Errorf("write state: %w", err)
	}
	return &StateChange{Names: names, SerialBefore: st.Metadata.Serial, SerialAfter: next.Metadata.Serial, BackupKey: key}, nil
}

// StateMatches are the names of st that filter selects, as tofu state
// list selects them: an instance's address its object, a resource's every
// instance of it, a module's everything in it (its instances' and the
// modules' within). A filter that is no address, or that selects nothing,
// is an error naming it.
func StateMatches(st *state.File, filter string) ([]string, error) {
	a, ok := value.ParseAddress(filter)
	if !ok || a.Kind == value.AllIndex {
		return nil, fmt.Errorf("%q is not a resource or module address (name, name[0], module.net or module.net[\"a\"].aws_subnet.x)", filter)
	}
	n := a.String()
	match := selected(st, n)
	if len(match) == 0 {
		return nil, fmt.Errorf("the state holds no %s%s", value.QuoteName(n), nameHint(n, st.Names()))
	}
	return match, nil
}

// selected is the object at name, or else the instances name has in st.
func selected(st *state.File, name string) []string {
	if st.Resources[name] != nil {
		return []string{name}
	}
	return instancesOf(st, name)
}

// instancesOf returns the state names of base's instances (base[…]), or
// of every resource in the module base names (module.net, module.net["a"]).
func instancesOf(st *state.File, base string) []string {
	a, _ := value.ParseAddress(base)
	in := members(base, a.Kind)
	if in == nil {
		return nil
	}
	var out []string
	for _, n := range st.Names() {
		if in(n) {
			out = append(out, n)
		}
	}
	return out
}

func configNames(cfg *config.Config) []string {
	out := make([]string, 0, len(cfg.Resources))
	for _, r := range cfg.Resources {
		out = append(out, r.Name)
	}
	return out
}

// nameHint names the closest of names to s, or lists a few.
func nameHint(s string, names []string) string {
	if hint := suggest.DidYouMean(s, names); hint != "" {
		return hint
	}
	if len(names) == 0 {
		return ""
	}
	shown := slices.Clone(names)
	if len(shown) > 8 {
		shown = append(shown[:8], "…")
	}
	return " (it has: " + strings.Join(shown, ", ") + ")"
}
