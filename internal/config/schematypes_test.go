package config

import (
	"slices"

	"github.com/kyku/action/internal/schema"
)

// What kyku.schema.json must say about Kyku's own resource types, built
// from package schema (the loader checks properties against it): the
// file's $defs/<Type> and the resource's allOf, without their
// annotations (title, description), must be these.

// wholeRef is the schema of a string that is one whole reference
// ("${var.replicas}"), which takes the type of what it names.
var wholeRef = map[string]any{"$ref": "#/$defs/wholeReference"}

// typeDefShape is $defs/<t.Name>: the properties mapping of a resource
// of type t.
func typeDefShape(t *schema.Type) map[string]any {
	def := fieldsShape(t.Props)
	if _, required := def["required"]; !required {
		def["type"] = []any{"object", "null"}
	}
	return def
}

// fieldsShape is a closed object of the given fields.
func fieldsShape(fields map[string]*schema.Prop) map[string]any {
	props := map[string]any{}
	var required []any
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p := fields[name]
		props[name] = propShape(p)
		if p.Required {
			required = append(required, name)
		}
	}
	def := map[string]any{"type": "object", "additionalProperties": false, "properties": props}
	if len(required) > 0 {
		def["required"] = required
	}
	return def
}

// propShape is the schema of one property: its kind, or (but for text)
// a whole reference; null (unset) unless required.
func propShape(p *schema.Prop) map[string]any {
	var typed map[string]any
	switch p.Kind {
	case schema.String:
		if len(p.Enum) == 0 {
			typed = map[string]any{"type": "string"}
			break
		}
		enum := make([]any, len(p.Enum))
		for i, e := range p.Enum {
			enum[i] = e
		}
		// A string holding a reference is checked once it is resolved.
		typed = map[string]any{"anyOf": []any{map[string]any{"enum": enum}, map[string]any{"$ref": "#/$defs/interpolated"}}}
	case schema.Ref:
		typed = map[string]any{"$ref": "#/$defs/reference"}
	case schema.Int:
		typed = map[string]any{"anyOf": []any{map[string]any{"type": "integer"}, wholeRef}}
	case schema.Bool:
		typed = map[string]any{"anyOf": []any{map[string]any{"type": "boolean"}, wholeRef}}
	case schema.Map:
		typed = map[string]any{"anyOf": []any{map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}, wholeRef}}
	case schema.List:
		typed = map[string]any{"anyOf": []any{map[string]any{"type": "array", "items": propShape(&schema.Prop{Kind: p.Elem.Kind, Elem: p.Elem.Elem, Fields: p.Elem.Fields, RefType: p.Elem.RefType, Enum: p.Elem.Enum, Required: true})}, wholeRef}}
	case schema.Object:
		typed = map[string]any{"anyOf": []any{fieldsShape(p.Fields), wholeRef}}
	default:
		panic("kyku.schema.json: no shape for kind " + p.Kind.String())
	}
	if p.Default != nil {
		typed["default"] = p.Default
	}
	if p.Required {
		return typed
	}
	return map[string]any{"anyOf": []any{typed, map[string]any{"type": "null"}}}
}

// typeSwitchShape is the resource's allOf: for each Kyku type, its
// properties (required when the type has required properties) and the
// names ignoreChanges may list.
func typeSwitchShape() []any {
	var out []any
	for _, name := range schema.Names() {
		t, _ := schema.Lookup(name)
		names := make([]any, 0, len(t.Props))
		for _, p := range t.PropNames() {
			names = append(names, p)
		}
		then := map[string]any{"properties": map[string]any{
			"properties":    map[string]any{"$ref": "#/$defs/" + name},
			"ignoreChanges": map[string]any{"type": "array", "items": map[string]any{"enum": names}},
		}}
		if _, required := typeDefShape(t)["required"]; required {
			then["required"] = []any{"properties"}
		}
		out = append(out, map[string]any{
			"if":   map[string]any{"properties": map[string]any{"type": map[string]any{"const": name}}, "required": []any{"type"}},
			"then": then,
		})
	}
	return out
}
