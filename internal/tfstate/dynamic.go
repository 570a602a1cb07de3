package tfstate

import (
	"maps"

	"github.com/kyku/action/internal/value"
)

// builtinDynamic lists, per resource type of OpenTofu's built-in
// provider, its attributes of any type (cty's dynamic pseudo-type):
// OpenTofu's state holds each as {"value": V, "type": T}, Kyku's state as
// V alone, as every other attribute.
var builtinDynamic = map[string][]string{
	"terraform_data": {"input", "output", "triggers_replace"},
}

// unwrapDynamic replaces, in attrs of an instance of typ, each attribute
// of any type by its value (a null one is left out).
func unwrapDynamic(typ string, attrs map[string]any) {
	for _, name := range builtinDynamic[typ] {
		m, ok := attrs[name].(map[string]any)
		if !ok {
			continue
		}
		if v, ok := m["value"]; ok && v != nil {
			attrs[name] = v
		} else {
			delete(attrs, name)
		}
	}
}

// wrapDynamic is attrs of an instance of typ with each attribute of any
// type written as OpenTofu's state holds it, with the type of its value
// as a literal of the configuration has it; attrs itself for a type
// without such attributes.
func wrapDynamic(typ string, attrs map[string]any) map[string]any {
	names := builtinDynamic[typ]
	if len(names) == 0 {
		return attrs
	}
	out := maps.Clone(attrs)
	for _, name := range names {
		if v, ok := out[name]; ok && v != nil {
			out[name] = map[string]any{"value": v, "type": value.TypeJSON(v)}
		}
	}
	return out
}
