package engine

import (
	"context"
	"slices"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// A property secret only in parts (a sensitive variable set inside an
// object) is recorded in state with the paths of those parts
// (state.Resource.SensitiveWithin), as Terraform's sensitive_attributes
// records each sensitive path: later plans mask those parts alone, also
// once the configuration no longer says so. State writes each path as the
// attribute's type reads it (a map's entry as ["key"], an object's
// attribute as .name, which is how a Terraform state tells them apart);
// plans name them as the configuration does (value.PathOf).

// wholeOf lists the names of names that within gives no paths for: those
// secret whole.
func wholeOf(names []string, within map[string][]string) []string {
	var out []string
	for _, n := range names {
		if _, ok := within[n]; !ok {
			out = append(out, n)
		}
	}
	return out
}

// planWithin is what a plan reads of a state's paths: each as the
// configuration names it; a property with a path it cannot read (not in
// the syntax, a splat) is among whole, secret whole.
func planWithin(within map[string][]string) (out map[string][]string, whole []string) {
	for n, paths := range within {
		var named []string
		for _, p := range paths {
			steps, ok := value.ParsePath(p)
			if !ok || slices.ContainsFunc(steps, value.Step.Splat) {
				named = nil
				break
			}
			named = append(named, value.PathOf(steps))
		}
		if len(named) == 0 {
			whole = append(whole, n)
			continue
		}
		if out == nil {
			out = map[string][]string{}
		}
		slices.Sort(named)
		out[n] = slices.Compact(named)
	}
	slices.Sort(whole)
	return out, whole
}

// secretWithin is plan.Change.SensitiveWithin of r: the parts of its
// properties secret only in parts, as the configuration says and as state
// recorded (was, wasWithin), less the properties secret whole for any
// reason (whole, or either of those).
func secretWithin(r *config.Resource, was []string, wasWithin map[string][]string, whole ...[]string) map[string][]string {
	if len(r.SensitiveWithin) == 0 && len(wasWithin) == 0 {
		return nil // no part of anything is secret alone (most resources): nothing to list
	}
	named, unread := planWithin(wasWithin)
	all := make([][]string, 0, len(whole)+3) // whole itself stays the caller's (on its stack)
	all = append(append(all, whole...), wholeOf(was, named), wholeOf(r.Sensitive, r.SensitiveWithin), unread)
	return partlySecret(unionWithin(r.SensitiveWithin, named), all...)
}

// unionWithin is the paths of a and b by property, each path once (a
// path of b named as one of a is, by value.PathOf, left out: a's way of
// writing it stays).
func unionWithin(a, b map[string][]string) map[string][]string {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	out := make(map[string][]string, len(a)+len(b))
	for n, paths := range a {
		out[n] = slices.Clone(paths)
	}
	for n, paths := range b {
		have := map[string]bool{}
		for _, p := range out[n] {
			have[namedAs(p)] = true
		}
		for _, p := range paths {
			if !have[namedAs(p)] {
				out[n] = append(out[n], p)
				have[namedAs(p)] = true
			}
		}
	}
	for n := range out {
		slices.Sort(out[n])
	}
	return out
}

// namedAs is p as a plan names it; p itself when it cannot be read.
func namedAs(p string) string {
	if steps, ok := value.ParsePath(p); ok {
		return value.PathOf(steps)
	}
	return p
}

// addSecret adds to a resource's secret properties (names, within) those
// of more (moreNames, moreWithin): a property secret whole in either is
// secret whole, one secret in parts in both keeps the parts of both.
func addSecret(names []string, within map[string][]string, moreNames []string, moreWithin map[string][]string) ([]string, map[string][]string) {
	all := sortedSet(slices.Concat(names, moreNames))
	var out map[string][]string
	for _, n := range all {
		a, inA := within[n]
		b, inB := moreWithin[n]
		wholeA := slices.Contains(names, n) && !inA
		wholeB := slices.Contains(moreNames, n) && !inB
		if wholeA || wholeB {
			continue
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[n] = unionWithin(map[string][]string{n: a}, map[string][]string{n: b})[n]
	}
	return all, out
}

// secretAfter is what is secret of an object after change c (typ's) made
// it: what the change says now (its parts: c.SecretParts, written as
// typ's schema reads them), and what was secret before (old, in state)
// whose value the change kept — a value stays masked until it changes,
// also when the configuration stops marking it.
func (e *Engine) secretAfter(ctx context.Context, typ string, c *plan.Change, old *state.Resource, props, outputs map[string]any) ([]string, map[string][]string) {
	var within map[string][]string
	for _, n := range c.Sensitive {
		if paths, ok := c.SecretParts[n]; ok {
			if within == nil {
				within = map[string][]string{}
			}
			within[n] = e.statePaths(ctx, typ, n, paths)
		}
	}
	if old == nil || len(old.Sensitive) == 0 {
		return c.Sensitive, within
	}
	var kept []string
	keptWithin := map[string][]string{}
	for _, n := range old.Sensitive {
		if value.Equal(old.Config[n], props[n]) && value.Equal(old.Outputs[n], outputs[n]) {
			kept = append(kept, n)
			if paths, ok := old.SensitiveWithin[n]; ok {
				keptWithin[n] = paths
			}
		}
	}
	return addSecret(c.Sensitive, within, kept, keptWithin)
}

// statePaths writes paths (inside top-level property name of typ, as a
// plan names them) as a state records them: each step into a map as
// ["key"], into an object as .name, as typ's schema reads the value
// there (e.provider.AttributeType); a step into a value whose type the
// schema leaves open (dynamic, or Kyku's types) as the plan names it.
func (e *Engine) statePaths(ctx context.Context, typ, name string, paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		steps, ok := value.ParsePath(p)
		if !ok {
			out = append(out, p)
			continue
		}
		var s string
		for i, st := range steps {
			one := value.PathOf(steps[i : i+1])
			if st.ByKey() && one[0] == '.' {
				if t, err := e.provider.AttributeType(ctx, typ, false, name, steps[:i]); err == nil && isMapType(t) {
					one = `["` + st.Key + `"]`
				}
			}
			s += one
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// isMapType says t, a type in Terraform's JSON type syntax, is a map's.
func isMapType(t any) bool {
	l, ok := t.([]any)
	return ok && len(l) == 2 && l[0] == "map"
}

// statePathsFunc is statePaths with its context: a property's secret
// paths as the plan writes them, in state's form.
type statePathsFunc func(typ, name string, paths []string) []string

// statePathsIn is statePaths bound to ctx.
func (e *Engine) statePathsIn(ctx context.Context) statePathsFunc {
	return func(typ, name string, paths []string) []string { return e.statePaths(ctx, typ, name, paths) }
}

// stateWithin is a no-op change's secret paths (SensitiveWithin, the
// plan's form: a map's key written as an attribute) in state's form (a
// map's entry as ["key"], as OpenTofu's sensitive_attributes index it),
// converted by toState.
func stateWithin(c plan.Change, toState statePathsFunc) map[string][]string {
	if len(c.SensitiveWithin) == 0 {
		return nil
	}
	out := make(map[string][]string, len(c.SensitiveWithin))
	for n, paths := range c.SensitiveWithin {
		out[n] = toState(c.Type, n, paths)
	}
	return out
}
