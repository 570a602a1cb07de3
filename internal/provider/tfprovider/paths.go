package tfprovider

import (
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"
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
