package value

import (
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
