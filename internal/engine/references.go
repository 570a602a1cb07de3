package engine

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/value"
)

// references are, by the path of the planned value ("network",
// "securityGroups[1]", "tags.env"), the references the configuration
// wrote in a resource's properties (cfg, as written; resolved, the same
// resolved): plan.Change.References. A reference is recorded only where
// the planned value (planned) is what it resolved to: where the provider
// planned another value, nothing; in a list whose order the provider
// changed (a set), at the element that holds the value. Properties in
// skip (the sensitive ones) have none.
func references(cfg, resolved, planned map[string]any, skip []string) map[string]string {
	if !hasTemplate(cfg) {
		return nil // nothing read a reference (most resources): no paths to make
	}
	out := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(cfg)) {
		if !slices.Contains(skip, k) {
			refsIn(out, k, cfg[k], resolved[k], planned[k])
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// refsIn adds to out the references under path: c as configured, r
// resolved, p planned.
func refsIn(out map[string]string, path string, c, r, p any) {
	switch x := c.(type) {
	case *value.Template:
		if refs := refText(x); refs != "" && value.Equal(asPlanned(r), asPlanned(p)) {
			out[path] = refs
		}
	case []any:
		rl, _ := r.([]any)
		pl, _ := p.([]any)
		if len(rl) != len(x) {
			return
		}
		used := make([]bool, len(pl))
		for i, e := range x {
			want := asPlanned(rl[i])
			refs := ""
			if tp, ok := e.(*value.Template); ok {
				refs = refText(tp)
			}
			if refs == "" {
				refsIn(out, path+"["+strconv.Itoa(i)+"]", e, rl[i], at(pl, i))
				continue
			}
			// The element where the planned list holds the value: the
			// same index, or (a set, reordered) the first unused one.
			j := -1
			if i < len(pl) && !used[i] && value.Equal(want, asPlanned(pl[i])) {
				j = i
			} else {
				for k, v := range pl {
					if !used[k] && value.Equal(want, asPlanned(v)) {
						j = k
						break
					}
				}
			}
			if j >= 0 {
				used[j] = true
				out[path+"["+strconv.Itoa(j)+"]"] = refs
			}
		}
	case map[string]any:
		rm, _ := r.(map[string]any)
		pm, _ := p.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(x)) {
			refsIn(out, path+"."+k, x[k], rm[k], pm[k])
		}
	}
}

// hasTemplate reports whether v, as configured, holds a template (a
// value that reads a reference) anywhere.
func hasTemplate(v any) bool {
	switch x := v.(type) {
	case *value.Template:
		return true
	case []any:
		return slices.ContainsFunc(x, hasTemplate)
	case map[string]any:
		for _, e := range x {
			if hasTemplate(e) {
				return true
			}
		}
	}
	return false
}

// asPlanned is a value as a plan shows it: a string interpolating a
// value not yet known is itself not yet known (a provider may plan it
// either way).
func asPlanned(v any) any {
	if s, ok := v.(string); ok && strings.Contains(s, value.Unknown) {
		return value.Unknown
	}
	return v
}

// at is l[i], or nil past its end.
func at(l []any, i int) any {
	if i < len(l) {
		return l[i]
	}
	return nil
}

// refText names the references template tp reads as written without
// "${…}" ("main-vpc", "vpc.id"), several joined by ", ".
func refText(tp *value.Template) string {
	refs := tp.Refs()
	names := make([]string, len(refs))
	for i, r := range refs {
		names[i] = strings.TrimSuffix(strings.TrimPrefix(r.String(), "${"), "}")
	}
	return strings.Join(names, ", ")
}
