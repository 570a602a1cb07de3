package render

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// A property the configuration makes secret only in parts (an object
// with one attribute read from a sensitive variable, a list with one such
// element: plan.Change.SensitiveWithin) is shown as OpenTofu shows it:
// its structure, each secret part masked at its path, the rest in clear.
// Everything else secret stays masked whole. When in doubt (a path that
// is not in the value, a part known only after apply, a secret part that
// changed inside a value shown as a block, where the old and new lines
// would read alike) the whole property is masked.

// shown is pc as c shows it: with Within set when only parts of it are
// secret, not Sensitive when none of its value is (a part of the
// property beside the secret ones), as it is otherwise.
func shown(c plan.Change, pc plan.PropChange) plan.PropChange {
	if !pc.Sensitive || len(c.SensitiveWithin) == 0 {
		return pc
	}
	top := topLevel(pc.Path)
	paths, ok := c.SensitiveWithin[top]
	if !ok || len(paths) == 0 {
		return pc
	}
	var within []string
	for _, p := range paths {
		steps := value.Ref{Path: p}.Steps()
		if len(steps) == 0 || slices.ContainsFunc(steps, value.Step.Splat) || value.PathOf(steps) != p {
			return pc // not a path this reads exactly
		}
		k, under := relation(pc.Path, top, steps)
		switch {
		case under:
			return pc
		case k >= 0:
			within = append(within, value.PathOf(steps[k:]))
		}
	}
	if len(within) == 0 {
		pc.Sensitive = false // no secret part is in this part of the property
		return pc
	}
	if pc.Old != nil && pc.New != nil && !sameAt(pc.Old, pc.New, within) {
		return pc
	}
	pc.Within = within
	return pc
}

// topLevel is the top-level property of a property path ("config" of
// "config.password", "ports" of "ports[1]").
func topLevel(path string) string {
	if i := strings.IndexAny(path, ".["); i > 0 {
		return path[:i]
	}
	return path
}

// relation places a property path (as package diff writes it: top, then
// .key and [index] steps) against a secret part's steps under top: k is
// how many of the steps the path already took when it is above the
// secret part (-1 when not), under says the path is the secret part or
// inside it.
func relation(path, top string, steps []value.Step) (k int, under bool) {
	d := top
	for i, st := range steps {
		if path == d {
			return i, false
		}
		d += diffStep(st)
	}
	if path == d || strings.HasPrefix(path, d+".") || strings.HasPrefix(path, d+"[") {
		return -1, true
	}
	return -1, false
}

// diffStep is a step as package diff writes it in a property's path.
func diffStep(st value.Step) string {
	if st.ByKey() {
		return "." + st.Key
	}
	return "[" + strconv.Itoa(st.Index) + "]"
}

// sameAt says whether old and new hold the same value at each of paths
// (both known, both there).
func sameAt(old, new any, paths []string) bool {
	for _, p := range paths {
		steps := value.Ref{Path: p}.Steps()
		o, ok1, err1 := value.Walk(old, steps)
		n, ok2, err2 := value.Walk(new, steps)
		if !ok1 || !ok2 || err1 != nil || err2 != nil || !value.Equal(o, n) {
			return false
		}
	}
	return true
}

// maskParts is v as a secret is shown: null stays null; with within, a
// copy of v with the value at each of those paths masked (the whole of v
// when one is not there); without, Masked.
func maskParts(v any, within []string) any {
	if v == nil {
		return nil
	}
	if len(within) > 0 {
		if out, ok := maskWithin(value.Copy(v), within); ok {
			return out
		}
	}
	return plan.Masked
}
