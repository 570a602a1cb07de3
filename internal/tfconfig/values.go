package tfconfig

import (
	"encoding/json"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/lang/marks"
	"github.com/kyku/action/internal/value"
)

// Kyku's canonical values (package value) and cty values meet here.
// Unknown values are value.Unknown on Kyku's side, a string holding it
// unknown as a whole; numbers are float64.

// canonical is v as a canonical value, marks dropped; unknown says it
// holds parts not known yet (value.Unknown there).
func canonical(v cty.Value) (out any, unknown bool) {
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

// fromCanonical is the cty value of a canonical one: lists as tuples,
// maps as objects, value.Unknown (or a string holding it) unknown.
func fromCanonical(v any) cty.Value {
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
			elems[i] = fromCanonical(e)
		}
		return cty.TupleVal(elems)
	case map[string]any:
		if len(x) == 0 {
			return cty.EmptyObjectVal
		}
		attrs := make(map[string]cty.Value, len(x))
		for k, e := range x {
			attrs[k] = fromCanonical(e)
		}
		return cty.ObjectVal(attrs)
	}
	return fromCanonical(value.Normalize(v))
}

// objectWith is the object of a resource instance's attributes vals,
// with every name of want it lacks null (state leaves null attributes
// out; an expression reading one reads null).
func objectWith(vals map[string]any, want []string) cty.Value {
	attrs := make(map[string]cty.Value, len(vals)+len(want))
	for k, e := range vals {
		attrs[k] = fromCanonical(e)
	}
	for _, name := range want {
		if _, ok := attrs[name]; !ok {
			attrs[name] = cty.NullVal(cty.DynamicPseudoType)
		}
	}
	if len(attrs) == 0 {
		return cty.EmptyObjectVal
	}
	return cty.ObjectVal(attrs)
}

// sensitiveIn reports whether v or a value in it is sensitive.
func sensitiveIn(v cty.Value) bool { return marks.Contains(v, marks.Sensitive) }

// invalid marks the placeholder of a value whose evaluation failed (its
// error reported): what derives from it is unknown for that reason, and
// says nothing more (a count read from it is not "unknown until apply").
type invalidMark struct{}

var invalid = invalidMark{}

// failed is the placeholder of a failed evaluation.
func failed(ty cty.Type) cty.Value { return cty.UnknownVal(ty).Mark(invalid) }

// fromFailure reports whether v derives from a failed evaluation.
func fromFailure(v cty.Value) bool {
	if !v.ContainsMarked() {
		return false
	}
	_, pvms := v.UnmarkDeepWithPaths()
	for _, pvm := range pvms {
		if _, ok := pvm.Marks[invalid]; ok {
			return true
		}
	}
	return false
}
