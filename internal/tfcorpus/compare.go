package tfcorpus

import (
	"fmt"
	"slices"
	"strings"
)

// Compare lists every difference between OpenTofu's plan (want) and
// Kyku's (got), one line each, naming the address and the attribute;
// none when they agree. A value one side shows as Masked matches any
// value at a path both sides mark sensitive.
func Compare(want, got Plan) []string {
	var diffs []string
	add := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }

	gotByKey := map[string]Change{}
	for _, c := range got.Changes {
		gotByKey[changeKey(c)] = c
	}
	seen := map[string]bool{}
	for _, w := range want.Changes {
		key := changeKey(w)
		seen[key] = true
		g, ok := gotByKey[key]
		if !ok {
			add("%s: missing: OpenTofu plans %v, Kyku plans nothing", key, w.Actions)
			continue
		}
		compareChange(key, w, g, add)
	}
	for _, g := range got.Changes {
		if key := changeKey(g); !seen[key] {
			add("%s: extra: Kyku plans %v, OpenTofu plans nothing", key, g.Actions)
		}
	}

	for _, name := range sortedKeys(want.Outputs) {
		w := want.Outputs[name]
		key := "output." + name
		g, ok := got.Outputs[name]
		if !ok {
			add("%s: missing: OpenTofu plans %s %s, Kyku plans nothing", key, w.Action, showValue(w.Value))
			continue
		}
		if w.Action != g.Action {
			add("%s: action: OpenTofu %s, Kyku %s", key, w.Action, g.Action)
		}
		if w.Sensitive != g.Sensitive {
			add("%s: sensitive: OpenTofu %t, Kyku %t", key, w.Sensitive, g.Sensitive)
		}
		var sens []string
		if w.Sensitive && g.Sensitive {
			sens = []string{""}
		}
		compareValue(key, "", w.Value, g.Value, sens, sens, add)
	}
	for _, name := range sortedKeys(got.Outputs) {
		if _, ok := want.Outputs[name]; !ok {
			g := got.Outputs[name]
			add("output.%s: extra: Kyku plans %s %s, OpenTofu plans nothing", name, g.Action, showValue(g.Value))
		}
	}
	return diffs
}

// changeKey names a change in messages and matches the two sides' changes.
func changeKey(c Change) string {
	if c.Deposed {
		return c.Address + " (deposed)"
	}
	return c.Address
}

func compareChange(key string, w, g Change, add func(string, ...any)) {
	if !slices.Equal(w.Actions, g.Actions) {
		add("%s: actions: OpenTofu %v, Kyku %v", key, w.Actions, g.Actions)
	}
	if w.PreviousAddress != g.PreviousAddress {
		add("%s: previous address: OpenTofu %q, Kyku %q", key, w.PreviousAddress, g.PreviousAddress)
	}
	if w.Importing != g.Importing {
		add("%s: import ID: OpenTofu %q, Kyku %q", key, w.Importing, g.Importing)
	}
	for _, p := range w.Sensitive {
		if !slices.Contains(g.Sensitive, p) {
			add("%s: %s: OpenTofu marks it sensitive, Kyku does not", key, showPath(p))
		}
	}
	for _, p := range g.Sensitive {
		if !slices.Contains(w.Sensitive, p) {
			add("%s: %s: Kyku marks it sensitive, OpenTofu does not", key, showPath(p))
		}
	}
	compareValue(key, "", w.After, g.After, w.Sensitive, g.Sensitive, add)
}

// compareValue reports where want and got differ under path.
func compareValue(key, path string, want, got any, wantSens, gotSens []string, add func(string, ...any)) {
	if want == Masked || got == Masked {
		if covered(wantSens, path) && covered(gotSens, path) {
			return
		}
	}
	switch w := want.(type) {
	case map[string]any:
		if g, ok := got.(map[string]any); ok {
			for _, k := range sortedKeys(w) {
				if _, ok := g[k]; !ok {
					add("%s: %s: OpenTofu %s, Kyku null", key, showPath(path+pathStep(k)), showValue(w[k]))
					continue
				}
				compareValue(key, path+pathStep(k), w[k], g[k], wantSens, gotSens, add)
			}
			for _, k := range sortedKeys(g) {
				if _, ok := w[k]; !ok {
					add("%s: %s: OpenTofu null, Kyku %s", key, showPath(path+pathStep(k)), showValue(g[k]))
				}
			}
			return
		}
	case []any:
		if g, ok := got.([]any); ok && len(g) == len(w) {
			for i := range w {
				compareValue(key, path+pathStep(i), w[i], g[i], wantSens, gotSens, add)
			}
			return
		}
	default:
		if want == got {
			return
		}
	}
	add("%s: %s: OpenTofu %s, Kyku %s", key, showPath(path), showValue(want), showValue(got))
}

// covered reports whether one of paths is path or holds it.
func covered(paths []string, path string) bool {
	for _, p := range paths {
		if p == path || strings.HasPrefix(path, p) && (path[len(p)] == '.' || path[len(p)] == '[') {
			return true
		}
	}
	return false
}
