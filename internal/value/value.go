// Package value owns Kyku's canonical property values and references.
//
// Every property value is one of: nil, bool, float64, string, []any,
// map[string]any (the encoding/json generic model; a number a float64
// cannot show exactly is a json.Number, see Number), so values decoded from
// YAML, from JSON state and from providers compare with Equal. A property
// the engine computes is an Expr: a Template reads references plainly,
// "${name}" (the provider ID of resource name) or "${name.attr}" (output
// attr of resource name), written in that form in plan files; a string is
// text. Pure functions, safe for concurrent use.
package value

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/noun"
)

// Ref is a reference to a resource (Attr empty: its provider ID) or to one of
// its outputs, and, with a Path, to a part of that output.
type Ref struct {
	Resource string
	Attr     string
	// Path reads into the attribute, as written after it: steps of [N]
	// (an element of a list), ["key"] or .key (an entry of a map or an
	// attribute of an object), e.g. `[0].data`. Empty: the whole
	// attribute.
	Path string
}

func (r Ref) String() string {
	if r.Attr == "" {
		return "${" + r.Resource + "}"
	}
	return "${" + r.Resource + "." + r.Attr + r.Path + "}"
}

// Whole is the reference to the whole attribute r reads into (r without
// its Path).
func (r Ref) Whole() Ref { return Ref{Resource: r.Resource, Attr: r.Attr} }

// A reference is ${name} or ${name.attr}, then a path into attr: name
// matches [A-Za-z0-9_][A-Za-z0-9_-]*, optionally followed by an instance
// index ([0], ["key"], [key] or [*], see Address), attr [A-Za-z0-9_]+, the
// path steps of [N], ["key"] (any characters but '"', '\\' and control
// characters), .key ([A-Za-z0-9_]+) and [*] (a splat). Ref.Resource holds the name with
// its index as written. nextRef finds them by hand; it is on the path of
// every property of every plan.

// nextRef finds the first reference in s at or after from. It returns the
// reference and its byte range, or ok false.
func nextRef(s string, from int) (r Ref, start, end int, ok bool) {
	for i := from; i+3 < len(s); i++ {
		j := strings.Index(s[i:], "${")
		if j < 0 {
			return Ref{}, 0, 0, false
		}
		i += j
		if r, end, ok := refAt(s, i); ok {
			return r, i, end, true
		}
	}
	return Ref{}, 0, 0, false
}

// refAt parses a reference starting at s[i] ("${"), returning its end.
func refAt(s string, i int) (Ref, int, bool) {
	k := i + 2
	n := k
	for n < len(s) && (isWord(s[n]) || (n > k && s[n] == '-')) {
		n++
	}
	if n == k {
		return Ref{}, 0, false
	}
	if n < len(s) && s[n] == '[' { // an instance: web[0], edge["a"], web[*]
		var a Address
		end, ok := indexEnd(s, n, &a)
		if !ok {
			return Ref{}, 0, false
		}
		n = end
	}
	r := Ref{Resource: s[k:n]}
	if n < len(s) && s[n] == '}' {
		return r, n + 1, true
	}
	if n < len(s) && s[n] == '.' {
		a := n + 1
		m := a
		for m < len(s) && isWord(s[m]) {
			m++
		}
		if m > a {
			r.Attr = s[a:m]
			if p, ok := pathEnd(s, m, nil); ok && p < len(s) && s[p] == '}' {
				r.Path = s[m:p]
				return r, p + 1, true
			}
		}
	}
	return Ref{}, 0, false
}

// pathEnd returns the end of the path steps starting at s[i] (i itself
// when there are none); ok is false for a malformed step. With steps
// non-nil it appends each step it reads there (the reference scanner
// passes nil: it only needs the end).
func pathEnd(s string, i int, steps *[]Step) (int, bool) {
	for i < len(s) {
		switch s[i] {
		case '.':
			j := i + 1
			for j < len(s) && isWord(s[j]) {
				j++
			}
			if j == i+1 {
				return 0, false
			}
			if steps != nil {
				*steps = append(*steps, Step{Key: s[i+1 : j], byKey: true})
			}
			i = j
		case '[':
			j := i + 1
			switch {
			case j < len(s) && s[j] == '"':
				k := j + 1
				for k < len(s) && s[k] != '"' && s[k] != '\\' && s[k] >= 0x20 {
					k++
				}
				if k+1 >= len(s) || s[k] != '"' || s[k+1] != ']' {
					return 0, false
				}
				if steps != nil {
					*steps = append(*steps, Step{Key: s[j+1 : k], byKey: true})
				}
				i = k + 2
			case j+1 < len(s) && s[j] == '*' && s[j+1] == ']':
				if steps != nil {
					*steps = append(*steps, Step{splat: true})
				}
				i = j + 2
			default:
				k := j
				for k < len(s) && s[k] >= '0' && s[k] <= '9' {
					k++
				}
				if k == j || k >= len(s) || s[k] != ']' || (k-j > 1 && s[j] == '0') || k-j > 9 {
					return 0, false
				}
				if steps != nil {
					n, _ := strconv.Atoi(s[j:k]) // at most 9 digits
					*steps = append(*steps, Step{Index: n})
				}
				i = k + 1
			}
		default:
			return i, true
		}
	}
	return i, true
}

// A Step is one step of a Ref's Path: an element of a list (Key empty,
// Index), an entry of a map or an attribute of an object (Key), or a
// splat, [*]: the rest of the path read from every element, into a list.
type Step struct {
	Key   string
	Index int
	byKey bool
	splat bool
}

func (st Step) String() string {
	if st.splat {
		return "[*]"
	}
	if st.byKey {
		return fmt.Sprintf("[%q]", st.Key)
	}
	return "[" + strconv.Itoa(st.Index) + "]"
}

// Steps are the steps of r's Path (none for the whole attribute, and
// none past a malformed step of a Path not made by the parser).
func (r Ref) Steps() []Step {
	var out []Step
	pathEnd(r.Path, 0, &out)
	return out
}

// ByKey reports whether the step reads a map's entry or an object's
// attribute (Key) rather than a list's element (Index).
func (st Step) ByKey() bool { return st.byKey }

// Splat reports whether the step is [*].
func (st Step) Splat() bool { return st.splat }

// HasSplat reports whether r's path holds a splat ([*]): its value is a
// list, whatever the attribute's elements are.
func (r Ref) HasSplat() bool { return slices.ContainsFunc(r.Steps(), Step.Splat) }

// Walk reads steps into v: known is false when v, or a part of it on
// the way, is not known yet (Unknown); an error (a *PathError) says which
// step does not apply (an index past the end, a key the map lacks, a step
// into null or into a string, number or bool). A splat reads the rest of
// the steps from each element of a list into a list, as Terraform's [*]
// does: null is the empty list, and any other value is read as a list of
// itself.
func Walk(v any, steps []Step) (out any, known bool, err error) {
	for i, st := range steps {
		if v == Unknown {
			return nil, false, nil
		}
		if st.splat {
			return walkSplat(v, steps[i+1:])
		}
		switch x := v.(type) {
		case []any:
			if st.byKey {
				return nil, false, pathErr(st, "a list has elements by number, not by key", "")
			}
			if st.Index >= len(x) {
				return nil, false, pathErr(st, "index out of range", " (the list has "+noun.Count(len(x), "element")+")")
			}
			v = x[st.Index]
		case map[string]any:
			if !st.byKey {
				return nil, false, pathErr(st, "a map or object has entries by key, not by number", "")
			}
			e, ok := x[st.Key]
			if !ok {
				return nil, false, pathErr(st, "no such key", " (it has: "+strings.Join(slices.Sorted(maps.Keys(x)), ", ")+")")
			}
			v = e
		case nil:
			return nil, false, pathErr(st, "the value is null", "")
		default:
			return nil, false, &PathError{Step: st, why: "cannot read into " + Text(x), masked: "cannot read into a " + KindOf(x)}
		}
	}
	if v == Unknown {
		return nil, false, nil
	}
	return v, true, nil
}

// walkSplat reads rest from every element of v (see Walk), into a list.
func walkSplat(v any, rest []Step) (any, bool, error) {
	var elems []any
	switch x := v.(type) {
	case nil:
		return []any{}, true, nil
	case []any:
		elems = x
	default:
		elems = []any{x}
	}
	out := make([]any, len(elems))
	for i, e := range elems {
		got, known, err := Walk(e, rest)
		if err != nil {
			return nil, false, fmt.Errorf("[*] (element %d): %w", i, err)
		}
		if !known {
			return nil, false, nil
		}
		out[i] = got
	}
	return out, true, nil
}

func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// Normalize converts v to the canonical model: ints of any width, json.Number
// and float32 become float64 (a json.Number a float64 cannot show stays
// one, see Number); []string and map[string]string are widened.
func Normalize(v any) any {
	switch x := v.(type) {
	case nil, bool, string, float64:
		return x
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case int32:
		return float64(x)
	case uint64:
		return float64(x)
	case float32:
		return float64(x)
	case json.Number:
		return normalNumber(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Normalize(e)
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Normalize(e)
		}
		return out
	case map[string]string:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = e
		}
		return out
	case Expr:
		return x
	}
	return fmt.Sprint(v)
}

// Equal reports whether two values are equal once canonical. Canonical
// values are compared in place, without the copies Normalize makes.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return x == y
		}
	case float64:
		if y, ok := b.(float64); ok {
			return x == y
		}
	case json.Number: // exact text, as Number writes it
		if y, ok := b.(json.Number); ok {
			return x == y
		}
	case bool:
		if y, ok := b.(bool); ok {
			return x == y
		}
	case nil:
		if b == nil {
			return true
		}
	case []any:
		if y, ok := b.([]any); ok {
			if len(x) != len(y) {
				return false
			}
			for i := range x {
				if !Equal(x[i], y[i]) {
					return false
				}
			}
			return true
		}
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			if len(x) != len(y) {
				return false
			}
			for k, xv := range x {
				yv, ok := y[k]
				if !ok || !Equal(xv, yv) {
					return false
				}
			}
			return true
		}
	}
	return reflect.DeepEqual(Normalize(a), Normalize(b))
}

// Copy returns a deep copy of a canonical value.
func Copy(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Copy(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Copy(e)
		}
		return out
	}
	return v
}

// CopyMap returns a deep copy of a property map (nil stays nil).
func CopyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return Copy(m).(map[string]any)
}

// Refs returns every reference found anywhere in v (nested lists and maps),
// in a deterministic order, without duplicates.
func Refs(v any) []Ref {
	seen := map[Ref]bool{}
	var out []Ref
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if !strings.Contains(x, "${") {
				return
			}
			for i := 0; ; {
				r, _, end, ok := nextRef(x, i)
				if !ok {
					break
				}
				if !seen[r] {
					seen[r] = true
					out = append(out, r)
				}
				i = end
			}
		case Expr:
			for _, r := range x.Refs() {
				if !seen[r] {
					seen[r] = true
					out = append(out, r)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k])
			}
		}
	}
	walk(v)
	return out
}

// HoldsTemplate reports whether a string in v (nested lists and maps
// included) holds "${": a configuration would read it as references, so
// a value holding it (a file's text, a value computed by an expression)
// is kept as an Expr, not as text.
func HoldsTemplate(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.Contains(x, "${")
	case []any:
		return slices.ContainsFunc(x, HoldsTemplate)
	case map[string]any:
		for _, e := range x {
			if HoldsTemplate(e) {
				return true
			}
		}
	}
	return false
}

// ParseRef parses a string that is exactly one reference.
func ParseRef(s string) (Ref, bool) {
	if len(s) < 4 || s[0] != '$' || s[1] != '{' || s[len(s)-1] != '}' {
		return Ref{}, false
	}
	r, end, ok := refAt(s, 0)
	if !ok || end != len(s) {
		return Ref{}, false
	}
	return r, true
}

// Unknown is the placeholder for a value that is known only after apply
// (a reference to something not yet created). It is a distinct string so it
// survives JSON round trips and renders well.
const Unknown = "(known after apply)"

// HasUnknown reports whether v holds a value known only after apply:
// Unknown, or a string interpolating it, anywhere in it.
func HasUnknown(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.Contains(x, Unknown)
	case []any:
		return slices.ContainsFunc(x, HasUnknown)
	case map[string]any:
		for _, e := range x {
			if HasUnknown(e) {
				return true
			}
		}
	}
	return false
}

// Lookup resolves one reference; ok is false when its value is not yet known.
type Lookup func(Ref) (v any, ok bool)

// Resolve replaces every reference in v using lookup. It returns the resolved
// value and whether any part of it was unknown (such parts become Unknown).
// A reference whose path does not apply to the value it reads resolves to
// Unknown here: callers that must refuse it use ResolveChecked.
func Resolve(v any, lookup Lookup) (any, bool) {
	out, unknown, _ := ResolveChecked(v, lookup)
	return out, unknown
}

// ResolveChecked is Resolve that also returns the first error of an
// Expr's evaluation (a Template's: a reference whose path does not apply
// to the value it reads, naming it). Strings are text: a template is an
// Expr (a Template when it reads resources plainly).
func ResolveChecked(v any, lookup Lookup) (any, bool, error) {
	unknown := false
	var first error
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case Expr:
			got, unk, err := x.Eval(lookup)
			if err != nil && first == nil {
				first = err
			}
			unknown = unknown || unk
			return got
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = walk(e)
			}
			return out
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, e := range x {
				out[k] = walk(e)
			}
			return out
		}
		return v
	}
	out := walk(v)
	return out, unknown, first
}

// AppendLeaves appends the scalar texts of v (Text of each; a list's
// elements, a map's values, nested) to out; a Template its text as
// written ("pw-${web.id}"), as the string it was; null and any other
// Expr (not a value yet) add nothing.
func AppendLeaves(out []string, v any) []string {
	switch x := v.(type) {
	case *Template:
		return append(out, x.String())
	case nil, Expr:
		return out
	case []any:
		for _, e := range x {
			out = AppendLeaves(out, e)
		}
		return out
	case map[string]any:
		for _, e := range x {
			out = AppendLeaves(out, e)
		}
		return out
	}
	return append(out, Text(v))
}

// Text renders a canonical value compactly for humans: strings bare, numbers
// without a trailing .0, lists and maps as JSON.
func Text(v any) string {
	switch x := Normalize(v).(type) {
	case nil:
		return "null"
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
}
