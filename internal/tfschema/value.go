package tfschema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/kyku/action/internal/value"
)

// Kyku's canonical values (package value: nil, bool, float64, string,
// []any, map[string]any) and cty values, the protocol's type system, meet
// here. Unknown values are value.Unknown on Kyku's side: the engine puts
// it where a reference is not yet known, also inside interpolated text,
// so a string holding it is unknown as a whole (Terraform too makes
// "prefix-${unknown}" unknown).

// IsUnknown reports whether a canonical value stands for an unknown one.
func IsUnknown(v any) bool {
	s, ok := v.(string)
	return ok && strings.Contains(s, value.Unknown)
}

// ToCty converts a canonical value to a cty value of type ty. Objects may
// omit attributes (they are null); an attribute the type lacks is an
// error. It is strict: no conversion between primitive types beyond what
// cty's own conversions allow (a number "5" for a number is fine, "x" is
// not). The error names the path.
func ToCty(v any, ty cty.Type) (cty.Value, error) {
	out, err := toCty(v, ty, nil)
	if err != nil {
		return cty.NilVal, err
	}
	return out, nil
}

func toCty(v any, ty cty.Type, path cty.Path) (cty.Value, error) {
	if v == nil {
		return cty.NullVal(ty), nil
	}
	if IsUnknown(v) {
		return cty.UnknownVal(ty), nil
	}
	switch {
	case ty == cty.DynamicPseudoType:
		return infer(v, path)
	case ty.IsPrimitiveType():
		return primitive(v, ty, path)
	case ty.IsObjectType():
		m, ok := v.(map[string]any)
		if !ok {
			return cty.NilVal, path.NewErrorf("an object is required, not %s", kind(v))
		}
		atys := ty.AttributeTypes()
		for k := range m {
			if _, ok := atys[k]; !ok {
				return cty.NilVal, path.GetAttr(k).NewErrorf("unsupported attribute %q", k)
			}
		}
		vals := make(map[string]cty.Value, len(atys))
		for k, aty := range atys {
			av, err := toCty(m[k], aty, path.GetAttr(k))
			if err != nil {
				return cty.NilVal, err
			}
			vals[k] = av
		}
		return cty.ObjectVal(vals), nil
	case ty.IsMapType():
		m, ok := v.(map[string]any)
		if !ok {
			return cty.NilVal, path.NewErrorf("a map is required, not %s", kind(v))
		}
		if len(m) == 0 {
			return cty.MapValEmpty(ty.ElementType()), nil
		}
		vals := make(map[string]cty.Value, len(m))
		for k, e := range m {
			ev, err := toCty(e, ty.ElementType(), path.Index(cty.StringVal(k)))
			if err != nil {
				return cty.NilVal, err
			}
			vals[k] = ev
		}
		return unify(cty.ObjectVal(vals), vals, ty, path, cty.MapVal)
	case ty.IsListType(), ty.IsSetType():
		l, ok := v.([]any)
		if !ok {
			return cty.NilVal, path.NewErrorf("a list is required, not %s", kind(v))
		}
		if len(l) == 0 {
			if ty.IsListType() {
				return cty.ListValEmpty(ty.ElementType()), nil
			}
			return cty.SetValEmpty(ty.ElementType()), nil
		}
		vals := make([]cty.Value, len(l))
		for i, e := range l {
			ev, err := toCty(e, ty.ElementType(), path.IndexInt(i))
			if err != nil {
				return cty.NilVal, err
			}
			vals[i] = ev
		}
		if ty.IsListType() {
			return unify(cty.TupleVal(vals), vals, ty, path, cty.ListVal)
		}
		return unify(cty.TupleVal(vals), vals, ty, path, cty.SetVal)
	case ty.IsTupleType():
		l, ok := v.([]any)
		if !ok {
			return cty.NilVal, path.NewErrorf("a list is required, not %s", kind(v))
		}
		etys := ty.TupleElementTypes()
		if len(l) != len(etys) {
			return cty.NilVal, path.NewErrorf("a list of %d elements is required, not %d", len(etys), len(l))
		}
		vals := make([]cty.Value, len(l))
		for i, e := range l {
			ev, err := toCty(e, etys[i], path.IndexInt(i))
			if err != nil {
				return cty.NilVal, err
			}
			vals[i] = ev
		}
		return cty.TupleVal(vals), nil
	}
	return cty.NilVal, path.NewErrorf("unsupported type %s", ty.FriendlyName())
}

// unify builds a collection from elements already of the element type;
// when that type is dynamic the elements may differ, and cty's conversion
// finds the one type they share (or says there is none).
func unify[E any](whole cty.Value, elems E, ty cty.Type, path cty.Path, build func(E) cty.Value) (cty.Value, error) {
	if !ty.ElementType().HasDynamicTypes() {
		return build(elems), nil
	}
	out, err := convert.Convert(whole, ty)
	if err != nil {
		return cty.NilVal, path.NewError(err)
	}
	return out, nil
}

// primitive converts a canonical scalar to a primitive type with cty's
// conversions (a number's text for a number, "true" for a bool).
func primitive(v any, ty cty.Type, path cty.Path) (cty.Value, error) {
	var in cty.Value
	switch x := v.(type) {
	case string:
		in = cty.StringVal(x)
	case float64, json.Number:
		f, ok := value.BigFloat(x)
		if !ok {
			return cty.NilVal, path.NewErrorf("%s is required, not %s", article(ty), kind(v))
		}
		in = cty.NumberVal(f)
	case bool:
		in = cty.BoolVal(x)
	default:
		return cty.NilVal, path.NewErrorf("%s is required, not %s", article(ty), kind(v))
	}
	out, err := convert.Convert(in, ty)
	if err != nil {
		return cty.NilVal, path.NewErrorf("%s is required, not %s", article(ty), kind(v))
	}
	return out, nil
}

// infer gives a canonical value its natural cty type, for attributes of
// dynamic type: lists become tuples and maps objects.
func infer(v any, path cty.Path) (cty.Value, error) {
	switch x := v.(type) {
	case nil:
		return cty.NullVal(cty.DynamicPseudoType), nil
	case string:
		if IsUnknown(x) {
			return cty.DynamicVal, nil
		}
		return cty.StringVal(x), nil
	case float64, json.Number:
		f, ok := value.BigFloat(x)
		if !ok {
			return cty.NilVal, path.NewErrorf("a number is required, not %s", kind(v))
		}
		return cty.NumberVal(f), nil
	case bool:
		return cty.BoolVal(x), nil
	case []any:
		if len(x) == 0 {
			return cty.EmptyTupleVal, nil
		}
		vals := make([]cty.Value, len(x))
		for i, e := range x {
			ev, err := infer(e, path.IndexInt(i))
			if err != nil {
				return cty.NilVal, err
			}
			vals[i] = ev
		}
		return cty.TupleVal(vals), nil
	case map[string]any:
		if len(x) == 0 {
			return cty.EmptyObjectVal, nil
		}
		vals := make(map[string]cty.Value, len(x))
		for k, e := range x {
			ev, err := infer(e, path.GetAttr(k))
			if err != nil {
				return cty.NilVal, err
			}
			vals[k] = ev
		}
		return cty.ObjectVal(vals), nil
	}
	return infer(value.Normalize(v), path)
}

// FromCty converts a cty value to a canonical one. Unknown values (also
// nested ones) become value.Unknown; null attributes of an object are
// left out (ToCty puts them back), null elements of a collection stay
// nil; sets become lists in cty's order of the set. Numbers become
// float64: an integer beyond 2^53 loses precision, as everywhere in
// Kyku's value model.
func FromCty(v cty.Value) any {
	v, _ = v.Unmark()
	if !v.IsKnown() {
		return value.Unknown
	}
	if v.IsNull() {
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
	case ty.IsListType(), ty.IsSetType(), ty.IsTupleType():
		out := make([]any, 0, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, FromCty(e))
		}
		return out
	case ty.IsObjectType():
		// by name: an ElementIterator would sort the names, and box each
		// as a cty string, for a map whose order is Go's
		atys := ty.AttributeTypes()
		out := make(map[string]any, len(atys))
		for k := range atys {
			e := v.GetAttr(k)
			if e.IsKnown() && e.IsNull() {
				continue
			}
			out[k] = FromCty(e)
		}
		return out
	case ty.IsMapType():
		out := make(map[string]any, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			out[k.AsString()] = FromCty(e)
		}
		return out
	}
	return nil
}

// FromCtyObject is FromCty of an object value as a property map (nil for
// a null object).
func FromCtyObject(v cty.Value) map[string]any {
	m, _ := FromCty(v).(map[string]any)
	return m
}

// kind names a canonical value's kind for messages (never its content,
// which may be secret).
func kind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a bool"
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	case nil:
		return "null"
	}
	return fmt.Sprintf("a %T", v)
}

func article(ty cty.Type) string {
	switch ty {
	case cty.String:
		return "a string"
	case cty.Number:
		return "a number"
	case cty.Bool:
		return "a bool"
	}
	return ty.FriendlyName()
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
