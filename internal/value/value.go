// Package value owns Kyku's canonical property values and references.
//
// Every property value is one of: nil, bool, float64, string, []any,
// map[string]any (the encoding/json generic model), so values decoded from
// YAML, from JSON state and from providers compare with Equal. A string may
// hold references: "${name}" (the provider ID of resource name) or
// "${name.attr}" (output attr of resource name). A string that is exactly one
// reference takes the referenced value's type; otherwise references are
// interpolated as text. Pure functions, safe for concurrent use.
package value

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Ref is a reference to a resource (Attr empty: its provider ID) or to one of
// its outputs.
type Ref struct {
	Resource string
	Attr     string
}

func (r Ref) String() string {
	if r.Attr == "" {
		return "${" + r.Resource + "}"
	}
	return "${" + r.Resource + "." + r.Attr + "}"
}

var refRE = regexp.MustCompile(`\$\{([A-Za-z0-9_][A-Za-z0-9_-]*)(?:\.([A-Za-z0-9_]+))?\}`)

// Normalize converts v to the canonical model: ints of any width, json.Number
// and float32 become float64; []string and map[string]string are widened.
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
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		return f
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
			for _, m := range refRE.FindAllStringSubmatch(x, -1) {
				r := Ref{Resource: m[1], Attr: m[2]}
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

// ParseRef parses a string that is exactly one reference.
func ParseRef(s string) (Ref, bool) {
	if len(s) < 4 || s[0] != '$' || s[1] != '{' || s[len(s)-1] != '}' {
		return Ref{}, false
	}
	m := refRE.FindStringSubmatchIndex(s)
	if m == nil || m[0] != 0 || m[1] != len(s) {
		return Ref{}, false
	}
	r := Ref{Resource: s[m[2]:m[3]]}
	if m[4] >= 0 {
		r.Attr = s[m[4]:m[5]]
	}
	return r, true
}

// Unknown is the placeholder for a value that is known only after apply
// (a reference to something not yet created). It is a distinct string so it
// survives JSON round trips and renders well.
const Unknown = "(known after apply)"

// Lookup resolves one reference; ok is false when its value is not yet known.
type Lookup func(Ref) (v any, ok bool)

// Resolve replaces every reference in v using lookup. It returns the resolved
// value and whether any part of it was unknown (such parts become Unknown).
func Resolve(v any, lookup Lookup) (any, bool) {
	unknown := false
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			if r, ok := ParseRef(x); ok {
				got, ok := lookup(r)
				if !ok {
					unknown = true
					return Unknown
				}
				return Normalize(got)
			}
			if !strings.Contains(x, "${") {
				return x
			}
			return refRE.ReplaceAllStringFunc(x, func(m string) string {
				r, _ := ParseRef(m)
				got, ok := lookup(r)
				if !ok {
					unknown = true
					return Unknown
				}
				return Text(got)
			})
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
	return walk(v), unknown
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
