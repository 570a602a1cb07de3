package tfstate

import (
	"maps"

	"github.com/kyku/action/internal/lang/ctyvalue"
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
// of any type by its value (a null one is left out), and returns the
// types OpenTofu recorded with them (state.Resource.Types; nil: none).
func unwrapDynamic(typ string, attrs map[string]any) map[string]any {
	var types map[string]any
	for _, name := range builtinDynamic[typ] {
		m, ok := attrs[name].(map[string]any)
		if !ok {
			continue
		}
		if v, ok := m["value"]; ok && v != nil {
			attrs[name] = v
			if t, ok := m["type"]; ok && t != nil {
				if types == nil {
					types = map[string]any{}
				}
				types[name] = t
			}
		} else {
			delete(attrs, name)
		}
	}
	return types
}

// wrapDynamic is attrs of an instance of typ with each attribute of any
// type written as OpenTofu's state holds it (null when it is, not left
// out), with its type: the one types
// records (state.Resource.Types) when the value is of it, else its
// value's own as a literal of the configuration has it; attrs itself for
// a type without such attributes.
func wrapDynamic(typ string, attrs, types map[string]any) map[string]any {
	names := builtinDynamic[typ]
	if len(names) == 0 {
		return attrs
	}
	out := maps.Clone(attrs)
	for _, name := range names {
		v, ok := out[name]
		if !ok || v == nil {
			out[name] = nil // null, written as OpenTofu writes it
			continue
		}
		t := types[name]
		if t != nil {
			if _, err := ctyvalue.Typed(v, t); err != nil {
				t = nil // not of it: the value's own
			}
		}
		if t == nil {
			t = value.TypeJSON(v)
		}
		out[name] = dynamicAttr{value: v, typ: t}
	}
	return out
}

// dynamicAttr is an attribute of any type as OpenTofu's state holds it:
// {"value": V, "type": T}, in that order (appendValue), as cty writes it.
type dynamicAttr struct{ value, typ any }
