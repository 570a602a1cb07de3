// Package ctyvalue is where Kyku's canonical values (package value) and
// cty values meet, for both configuration languages' evaluator: unknown
// values are value.Unknown on Kyku's side (a string holding it unknown
// as a whole), numbers float64 (or a json.Number a float64 cannot show).
// Pure functions, safe for concurrent use.
package ctyvalue

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/kyku/action/internal/value"
)

// Canonical is v as a canonical value, marks dropped; unknown says it
// holds parts not known yet (value.Unknown there).
func Canonical(v cty.Value) (out any, unknown bool) {
	v, _ = v.UnmarkDeep()
	return toCanonical(v, &unknown), unknown
}

func toCanonical(v cty.Value, unknown *bool) any {
	switch {
	case !v.IsKnown():
		*unknown = true
		return value.Unknown
	case v.IsNull():
		return nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return v.AsString()
	case ty == cty.Number:
		return value.Number(v.AsBigFloat())
	case ty == cty.Bool:
		return v.True()
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		out := make([]any, 0, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, toCanonical(e, unknown))
		}
		return out
	case ty.IsMapType() || ty.IsObjectType():
		out := make(map[string]any, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			out[k.AsString()] = toCanonical(e, unknown)
		}
		return out
	}
	*unknown = true
	return value.Unknown
}

// FromCanonical is the cty value of a canonical one: lists as tuples,
// maps as objects, value.Unknown (or a string holding it) unknown.
func FromCanonical(v any) cty.Value {
	switch x := v.(type) {
	case nil:
		return cty.NullVal(cty.DynamicPseudoType)
	case string:
		switch {
		case x == value.Unknown:
			return cty.DynamicVal
		case strings.Contains(x, value.Unknown):
			return cty.UnknownVal(cty.String)
		}
		return cty.StringVal(x)
	case float64, json.Number:
		if f, ok := value.BigFloat(x); ok {
			return cty.NumberVal(f)
		}
		return cty.DynamicVal
	case bool:
		return cty.BoolVal(x)
	case []any:
		if len(x) == 0 {
			return cty.EmptyTupleVal
		}
		elems := make([]cty.Value, len(x))
		for i, e := range x {
			elems[i] = FromCanonical(e)
		}
		return cty.TupleVal(elems)
	case map[string]any:
		if len(x) == 0 {
			return cty.EmptyObjectVal
		}
		attrs := make(map[string]cty.Value, len(x))
		for k, e := range x {
			attrs[k] = FromCanonical(e)
		}
		return cty.ObjectVal(attrs)
	}
	return FromCanonical(value.Normalize(v))
}

// TypeJSON is t in Terraform's JSON type syntax, decoded ("string",
// ["list","string"], ["object",{"a":"number"}], "dynamic"), as a state
// records an output's type; nil when t has none (cty.NilType).
func TypeJSON(t cty.Type) any {
	if t == cty.NilType {
		return nil
	}
	b, err := ctyjson.MarshalType(t)
	if err != nil {
		return nil // every type but NilType marshals
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil
	}
	return out
}

// Typed is canonical value v as a cty value of typ, a type in
// Terraform's JSON type syntax as TypeJSON writes it (nil: v's own,
// value.TypeJSON): the value a state records with its type.
func Typed(v, typ any) (cty.Value, error) {
	if typ == nil {
		typ = value.TypeJSON(v)
	}
	tb, err := json.Marshal(typ)
	if err != nil {
		return cty.NilVal, fmt.Errorf("type: %w", err)
	}
	ty, err := ctyjson.UnmarshalType(tb)
	if err != nil {
		return cty.NilVal, fmt.Errorf("type %s: %w", tb, err)
	}
	vb, err := json.Marshal(v)
	if err != nil {
		return cty.NilVal, fmt.Errorf("value: %w", err)
	}
	cv, err := ctyjson.Unmarshal(vb, ty)
	if err != nil {
		return cty.NilVal, fmt.Errorf("value does not fit its type %s: %w", tb, err)
	}
	return cv, nil
}
