package tfprovider

import (
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/diag"
)

// kykuPath writes an attribute path as Kyku names the parts of a
// property (config.Resource.PropPos, provider.Refusal.Path): attributes
// and map keys after a ".", list indexes in brackets ("rule[0].port",
// "tags.env"). It stops before a step it cannot name (a set element).
func kykuPath(p cty.Path) string {
	var b strings.Builder
	for _, step := range p {
		switch s := step.(type) {
		case cty.GetAttrStep:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Name)
		case cty.IndexStep:
			switch {
			case s.Key.IsNull() || !s.Key.IsKnown():
				return b.String()
			case s.Key.Type() == cty.String:
				b.WriteByte('.')
				b.WriteString(s.Key.AsString())
			case s.Key.Type() == cty.Number:
				i, _ := s.Key.AsBigFloat().Int64()
				b.WriteByte('[')
				b.WriteString(strconv.FormatInt(i, 10))
				b.WriteByte(']')
			default:
				return b.String()
			}
		}
	}
	return b.String()
}

// nearest is the position of path in positions, or of its nearest
// parent there.
func nearest(positions map[string]diag.Pos, path string) (diag.Pos, bool) {
	for path != "" {
		if pos, ok := positions[path]; ok {
			return pos, true
		}
		i := strings.LastIndexAny(path, ".[")
		if i <= 0 {
			break
		}
		path = path[:i]
	}
	return diag.Pos{}, false
}
