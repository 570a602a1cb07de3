package value

import "encoding/json"

// TypeJSON is v's type in Terraform's JSON type syntax, for a value whose
// type no schema says (an output, a literal of the configuration):
// "string", "number", "bool", ["tuple", [types…]] for a list (Terraform's
// type of a splat, or of a list written in the configuration),
// ["object", {name: type}] for a map, "dynamic" for null.
func TypeJSON(v any) any {
	switch x := Normalize(v).(type) {
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "bool"
	case []any:
		elems := make([]any, len(x))
		for i, e := range x {
			elems[i] = TypeJSON(e)
		}
		return []any{"tuple", elems}
	case map[string]any:
		attrs := make(map[string]any, len(x))
		for k, e := range x {
			attrs[k] = TypeJSON(e)
		}
		return []any{"object", attrs}
	}
	return "dynamic"
}
