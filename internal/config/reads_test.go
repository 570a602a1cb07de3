package config

import (
	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/value"
)

// asText is v with every value.Template (a template reading resources
// plainly) as its text in Kyku's reference form, "db-${main-vpc}":
// what the tests written against that form compare.
func asText(v any) any {
	switch x := v.(type) {
	case *value.Template:
		return x.String()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = asText(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = asText(e)
		}
		return out
	}
	return v
}

// textForm compares property maps as asText shows them.
var textForm = cmp.Transformer("asText", func(m map[string]any) map[string]any {
	out, _ := asText(m).(map[string]any)
	return out
})
