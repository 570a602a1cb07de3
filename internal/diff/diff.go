// Package diff owns the property-level comparison of a desired resource with
// what the cloud (or the last applied state) holds. It decides between
// no-op, update and replace, honouring the provider's replace rules (or
// the schema's immutable properties) and ignoreChanges. Pure; no rendering, no I/O; safe for concurrent use.
package diff

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/value"
)

// Input is one resource to compare.
type Input struct {
	Type *schema.Type
	// Desired holds the resolved desired properties; a value that is not yet
	// known holds value.Unknown (see value.Resolve).
	Desired map[string]any
	// Actual holds the properties read from the cloud. A property missing
	// here (a provider that cannot read it back, e.g. userData) is compared
	// with Last instead.
	Actual map[string]any
	// Last holds the properties last applied (state config).
	Last map[string]any
	// IgnoreChanges lists top-level properties whose drift is not an update.
	IgnoreChanges []string
	// Sensitive lists top-level properties to mask besides the ones the
	// schema marks (they hold a sensitive variable's value).
	Sensitive []string
	// Rule says whether a change of the top-level property prop forces a
	// replace, and why (the provider's rule, see provider.TypeSchema.Rules);
	// nil: the schema's Immutable, without a reason.
	Rule func(prop string) (replace bool, reason string)
}

// Result is the outcome of a comparison.
type Result struct {
	Action  plan.Action // NoOp, Update or Replace
	Changes []plan.PropChange
}

// Resource compares desired with actual: Values of what Compared
// selects, each change flagged by its top-level property's rule and
// sensitivity.
func Resource(in Input) Result {
	var res Result
	prior, desired := Compared(in)
	res.Changes = Values(prior, desired, nil)
	for i := range res.Changes {
		pc := &res.Changes[i]
		name := TopLevel(pc.Path)
		p := in.Type.Props[name]
		pc.Sensitive = (p != nil && p.Sensitive) || slices.Contains(in.Sensitive, name)
		forces, reason := p != nil && p.Immutable, ""
		if in.Rule != nil {
			forces, reason = in.Rule(name)
		}
		if forces {
			pc.ForcesReplace, pc.ReplaceReason = true, reason
			res.Action = plan.Replace
		}
	}
	if res.Action != plan.Replace && len(res.Changes) > 0 {
		res.Action = plan.Update
	}
	return res
}

// Compared is what Resource compares, as two maps of top-level
// properties: prior holds each property as Actual has it (as Last has it
// where Actual lacks it), desired as Desired has it; lists whose order
// does not matter (schema.Prop.Set) in canonical order. A property in
// IgnoreChanges, or empty on both sides, is in neither; one a side does
// not have is missing there. Values(prior, desired, …) lists their
// differences. prior is never nil.
func Compared(in Input) (prior, desired map[string]any) {
	prior, desired = map[string]any{}, make(map[string]any, len(in.Desired))
	names, schemaNames := propNames(in)
	for _, name := range names {
		if slices.Contains(in.IgnoreChanges, name) {
			continue
		}
		d, hasD := in.Desired[name]
		a, hasA := in.Actual[name]
		if schemaNames && !hasD && !hasA {
			continue // a schema property neither side has
		}
		if !hasA {
			a = in.Last[name]
		}
		if isEmpty(d) && isEmpty(a) {
			continue
		}
		if p := in.Type.Props[name]; p != nil && p.Set {
			a, d = sortedSet(a), sortedSet(d)
		}
		if a != nil {
			prior[name] = a
		}
		if d != nil {
			desired[name] = d
		}
	}
	return prior, desired
}

// TopLevel is the top-level property of path ("ingress" of
// "ingress[0].port").
func TopLevel(path string) string {
	if i := strings.IndexAny(path, ".["); i > 0 {
		return path[:i]
	}
	return path
}

// Create lists the properties of a resource to be created (old = nil);
// sensitive names properties to mask besides the ones the schema marks.
func Create(t *schema.Type, desired map[string]any, sensitive ...string) []plan.PropChange {
	var out []plan.PropChange
	for _, name := range sortedKeys(desired) {
		v := desired[name]
		if isEmpty(v) {
			continue
		}
		p := t.Props[name]
		out = append(out, plan.PropChange{
			Path: name, New: v,
			Sensitive: (p != nil && p.Sensitive) || slices.Contains(sensitive, name),
			Unknown:   value.HasUnknown(v),
		})
	}
	return out
}

// propNames returns the names of the properties to compare, sorted. Usually
// every desired property is one of the schema's: then it returns the
// schema's sorted names as they are (schema true), of which the caller
// skips those neither Desired nor Actual has, instead of collecting and
// sorting the maps' keys.
func propNames(in Input) (names []string, schema bool) {
	names = in.Type.SortedProps()
	known := 0
	for k := range in.Desired {
		if in.Type.Props[k] != nil {
			known++
		}
	}
	if known == len(in.Desired) {
		return names, true
	}
	seen := map[string]bool{}
	for k := range in.Desired {
		seen[k] = true
	}
	for k := range in.Actual {
		if in.Type.Props[k] != nil {
			seen[k] = true
		}
	}
	all := make([]string, 0, len(seen))
	for k := range seen {
		all = append(all, k)
	}
	sort.Strings(all)
	return all, false
}

// compare appends the differences between old and new under path. Maps are
// compared key by key ("tags.env"); lists of equal length element by element
// ("ingress[0].port"); anything else as a whole.
func compare(path string, old, new any, out *[]plan.PropChange) {
	if value.Equal(old, new) { // no copies: most properties are unchanged
		return
	}
	old, new = value.Normalize(old), value.Normalize(new)
	if value.HasUnknown(new) && !containsMap(new) {
		*out = append(*out, plan.PropChange{Path: path, Old: old, New: new, Unknown: true})
		return
	}
	om, ok1 := old.(map[string]any)
	nm, ok2 := new.(map[string]any)
	if ok1 && ok2 {
		keys := map[string]bool{}
		for k := range om {
			keys[k] = true
		}
		for k := range nm {
			keys[k] = true
		}
		for _, k := range sortedKeys(keys) {
			compare(path+"."+k, om[k], nm[k], out)
		}
		return
	}
	ol, ok1 := old.([]any)
	nl, ok2 := new.([]any)
	if ok1 && ok2 && len(ol) == len(nl) {
		for i := range ol {
			compare(fmt.Sprintf("%s[%d]", path, i), ol[i], nl[i], out)
		}
		return
	}
	if isEmpty(old) && isEmpty(new) {
		return
	}
	*out = append(*out, plan.PropChange{Path: path, Old: old, New: new, Unknown: value.HasUnknown(new)})
}

// sortedSet orders a list whose order does not matter canonically (by each
// element's JSON), so that only membership is compared.
func sortedSet(v any) any {
	l, ok := value.Normalize(v).([]any)
	if !ok {
		return v
	}
	if len(l) < 2 {
		return l // already in order (a set of one is the common case)
	}
	keyed := make([]struct {
		k string
		v any
	}, len(l))
	var buf []byte
	for i, e := range l {
		buf, _ = value.AppendJSON(buf[:0], e) // json.Marshal's bytes, without reflection
		keyed[i].k, keyed[i].v = string(buf), e
	}
	sort.SliceStable(keyed, func(i, j int) bool { return keyed[i].k < keyed[j].k })
	out := make([]any, len(l))
	for i := range keyed {
		out[i] = keyed[i].v
	}
	return out
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

func containsMap(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
