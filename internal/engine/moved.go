package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// moved applies the config's moved entries whose from is in st, and the
// moves OpenTofu implies when count is added or removed (impliedMoves),
// to a view of st (st itself is not changed): it returns the view and, for every
// destination, the name state knew it by. An entry of two resource names
// (config.Moved.Whole) moves every instance state holds of its from to
// the instance of its to with the same key, as OpenTofu does. A move whose
// destination is in state already (a clash), is not in the configuration,
// or has another type is an error positioned at its entry; so is a move
// of one object whose from state holds only instances of (a[0], a[1]),
// which would leave them to be destroyed.
func moved(cfg *config.Config, st *state.File) (*state.File, map[string]string, error) {
	if err := refuseImpliedIntentMoves(cfg, st); err != nil { // intentmoves.go
		return nil, nil, err
	}
	implied := impliedMoves(cfg, st)
	if len(cfg.Moved) == 0 && len(implied) == 0 {
		return st, nil, nil
	}
	var diags diag.Diagnostics
	do := implied // from, to
	var configured map[string]bool
	for _, m := range cfg.Moved {
		pairs, ok := movePairs(&diags, m, st)
		if !ok {
			continue
		}
		if len(pairs) == 0 {
			if configured == nil {
				configured = baseNames(cfg)
			}
			refuseInstancesToOne(&diags, m, st, configured)
			continue // already moved, or never there: ignored
		}
		for _, pair := range pairs {
			if checkMove(&diags, cfg, st, m, pair[0], pair[1]) {
				do = append(do, pair)
			}
		}
	}
	for _, m := range cfg.Moved {
		refuseIntentMove(&diags, m, st) // intentmoves.go
	}
	if err := diags.Err(); err != nil {
		return nil, nil, err
	}
	if len(do) == 0 {
		return st, nil, nil
	}
	view := *st
	view.Resources = make(map[string]*state.Resource, len(st.Resources))
	for n, r := range st.Resources {
		view.Resources[n] = r
	}
	if err := carryIntents(&view, do); err != nil { // intentmoves.go
		return nil, nil, err
	}
	from := make(map[string]string, len(do))
	renamed := map[string]string{}
	for _, pair := range do {
		r := *st.Resources[pair[0]]
		r.Name = pair[1]
		if to := cfg.Resource(pair[1]); to != nil && to.Type != r.Type {
			r = nullToTerraformData(r) // movesType allowed it
		}
		delete(view.Resources, pair[0])
		view.Resources[pair[1]] = &r
		from[pair[1]] = pair[0]
		renamed[pair[0]] = pair[1]
	}
	for n, r := range view.Resources {
		if !slices.ContainsFunc(r.Dependencies, func(d string) bool { return renamed[d] != "" }) {
			continue
		}
		c := *r
		c.Dependencies = make([]string, len(r.Dependencies))
		for i, d := range r.Dependencies {
			if to := renamed[d]; to != "" {
				d = to
			}
			c.Dependencies[i] = d
		}
		view.Resources[n] = &c
	}
	return &view, from, nil
}

// movePairs are the state names m moves, each with its new name: its
// from, or, for a whole resource, every instance of it state holds (not
// an object a create-before-destroy replace deposed). A whole move onto a
// resource state already has is a clash (ok false).
func movePairs(diags *diag.Diagnostics, m *config.Moved, st *state.File) ([][2]string, bool) {
	if !m.Whole() {
		if st.Resources[m.From] == nil {
			return nil, true
		}
		return [][2]string{{m.From, m.To}}, true
	}
	var pairs [][2]string
	var clash bool
	for n := range st.Resources {
		if _, deposed := plan.DeposedOf(n); deposed {
			continue // an object a replace left to destroy stays where it is
		}
		switch value.BaseName(n) {
		case m.From:
			pairs = append(pairs, [2]string{n, m.To + n[len(m.From):]})
		case m.To:
			clash = true
		}
	}
	if clash && len(pairs) > 0 {
		diags.Add(m.Pos, "moved %s → %s: both are in state; remove one with kyku state rm, or drop the entry", m.From, m.To)
		return nil, false
	}
	slices.SortFunc(pairs, func(a, b [2]string) int { return value.CompareNames(a[0], b[0]) })
	return pairs, true
}

// checkMove reports why the state resource from cannot move to to (m's
// move, or, for a whole resource, one instance of it), or returns true.
func checkMove(diags *diag.Diagnostics, cfg *config.Config, st *state.File, m *config.Moved, from, to string) bool {
	what := m.From + " → " + m.To
	if from != m.From {
		what += " (" + from + " → " + to + ")"
	}
	sr, r := st.Resources[from], cfg.Resource(to)
	switch {
	case st.Resources[to] != nil:
		diags.Add(m.Pos, "moved %s: both are in state; remove one with kyku state rm, or drop the entry", what)
	case r == nil && from == m.From && m.Whole() && firstInstance(cfg, to) != "":
		diags.Add(m.Pos, "moved %s: state holds one %s, and %s has instances (count or forEach): move it to one of them (to: %q)", what, value.QuoteName(from), value.QuoteName(to), firstInstance(cfg, to))
	case r == nil:
		diags.Add(m.Pos, "moved %s: %s is not in the configuration of %s, so it would be destroyed; fix the entry", what, value.QuoteName(to), envLabel(cfg.Environment))
	case r.Type != sr.Type && !movesType(sr.Type, r.Type):
		hint := ""
		if r.Pos.InTerraformFile() {
			hint = " (but for null_resource to terraform_data, which OpenTofu's terraform_data takes)"
		}
		diags.Add(m.Pos, "moved %s: state has a %s, the configuration a %s; a move cannot change the type%s", what, sr.Type, r.Type, hint)
	default:
		return true
	}
	return false
}

// refuseInstancesToOne refuses m, a move of one object from a name state
// holds only instances of (a[0], a[1]) that the configuration no longer
// declares: they would be destroyed. OpenTofu reads such an entry as a
// move of the object a (none) and leaves them to be; Kyku says so.
func refuseInstancesToOne(diags *diag.Diagnostics, m *config.Moved, st *state.File, configured map[string]bool) {
	if m.Whole() || strings.Contains(m.From, "[") || configured[m.From] {
		return
	}
	insts := instancesOf(st, m.From)
	if len(insts) == 0 {
		return
	}
	diags.Add(m.Pos, "moved %s → %s: state holds instances of %s (%s), not one object: move the whole resource (to: %s), or each instance in an entry of its own",
		m.From, m.To, value.QuoteName(m.From), strings.Join(insts, ", "), value.BaseName(m.To))
}

// baseNames is the set of resource names cfg declares (web for web[0]).
func baseNames(cfg *config.Config) map[string]bool {
	out := make(map[string]bool, len(cfg.Resources))
	for _, r := range cfg.Resources {
		out[value.BaseName(r.Name)] = true
	}
	return out
}

// firstInstance is the first instance cfg declares of resource name, or
// "" when it has none.
func firstInstance(cfg *config.Config, name string) string {
	for _, r := range cfg.Resources {
		if value.BaseName(r.Name) == name && r.Name != name {
			return r.Name
		}
	}
	return ""
}

func envLabel(env string) string {
	if env == "" {
		return "the default environment"
	}
	return "environment " + fmt.Sprintf("%q", env)
}

// movesType reports whether a move may take an object of type from to
// type to: OpenTofu's terraform_data takes a null_resource's state
// (its provider's MoveResourceState), HashiCorp's way off hashicorp/null.
func movesType(from, to string) bool {
	return from == "null_resource" && to == "terraform_data"
}

// nullToTerraformData is the state of null_resource r moved to a
// terraform_data, as OpenTofu's terraform_data makes it: its ID kept, its
// triggers (a map of strings) its triggers_replace, an object of them;
// input and output null.
func nullToTerraformData(r state.Resource) state.Resource {
	out := map[string]any{}
	if id, ok := r.Outputs["id"]; ok && id != nil {
		out["id"] = id
	}
	if triggers, ok := r.Outputs["triggers"].(map[string]any); ok {
		out["triggers_replace"] = value.CopyMap(triggers)
	}
	r.Type, r.Outputs, r.Config, r.Types = "terraform_data", out, nil, nil
	r.SchemaVersion, r.Sensitive, r.SensitiveWithin, r.Basis = 0, nil, nil, nil
	return r
}
