package value

import (
	"maps"
	"strconv"
	"strings"
)

// PathOf writes steps in Ref's Path syntax as Kyku writes a path it
// names: a key that is an identifier after a ".", any other in quotes
// (["api-key"]), an index in brackets ([0]), a splat as [*]. A map's
// entry and an object's attribute read alike.
func PathOf(steps []Step) string {
	var b strings.Builder
	for _, st := range steps {
		switch {
		case st.splat:
			b.WriteString("[*]")
		case st.byKey && Identifier(st.Key):
			b.WriteString("." + st.Key)
		case st.byKey:
			b.WriteString(`["` + st.Key + `"]`)
		default:
			b.WriteString("[" + strconv.Itoa(st.Index) + "]")
		}
	}
	return b.String()
}

// ParsePath reads s, a whole path in Ref's Path syntax; false when s is
// empty or not one from start to end.
func ParsePath(s string) ([]Step, bool) {
	var steps []Step
	end, ok := pathEnd(s, 0, &steps)
	return steps, ok && end == len(s) && len(steps) > 0
}

// Identifier reports whether s is written as a .name step: a letter or
// _ first, then letters, digits and _. Any other key is written in quotes
// (["0day"], ["api-key"]).
func Identifier(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}

// CutPath splits name, an argument's name followed by a path into it in
// Ref's Path syntax (tags["Name"], disk[0].size), into the two.
func CutPath(name string) (string, string) {
	if i := strings.IndexAny(name, ".["); i > 0 {
		return name[:i], name[i:]
	}
	return name, ""
}

// PutAt is v with what steps lead to in v replaced by what the same
// steps lead to in from (removed where from has nothing there): v itself
// is not changed. A step v cannot follow (a missing key, an index past
// the end, a value not a map or list) leaves v as it is.
func PutAt(v any, steps []Step, from any) any {
	if len(steps) == 0 {
		return from
	}
	st := steps[0]
	inner, _, err := Walk(from, steps[:1])
	if err != nil {
		inner = nil
	}
	switch x := v.(type) {
	case map[string]any:
		if !st.ByKey() {
			return v
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = e
		}
		cur, had := x[st.Key]
		if len(steps) == 1 {
			if err != nil {
				delete(out, st.Key)
			} else {
				out[st.Key] = inner
			}
			return out
		}
		if !had {
			return v
		}
		out[st.Key] = PutAt(cur, steps[1:], inner)
		return out
	case []any:
		if st.ByKey() || st.Splat() || st.Index < 0 || st.Index >= len(x) {
			return v
		}
		out := append([]any(nil), x...)
		if len(steps) == 1 {
			out[st.Index] = inner
			return out
		}
		out[st.Index] = PutAt(x[st.Index], steps[1:], inner)
		return out
	}
	return v
}

// KeepFrom is a copy of dst in which each of entries, an attribute's
// name or a name followed by a path into it (CutPath), holds what src
// holds there, and nothing where src has nothing: what ignore_changes
// keeps of an object.
func KeepFrom(dst, src map[string]any, entries []string) map[string]any {
	out := maps.Clone(dst)
	if out == nil {
		out = map[string]any{}
	}
	for _, entry := range entries {
		name, path := CutPath(entry)
		was, ok := src[name]
		switch {
		case path != "":
			out[name] = PutAt(out[name], Ref{Path: path}.Steps(), was)
		case ok:
			out[name] = was
		default:
			delete(out, name)
		}
	}
	return out
}
