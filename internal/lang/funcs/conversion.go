package funcs

import (
	"reflect"
	"strconv"
	"sync"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/kyku/action/internal/lang/marks"
)

// addConversion adds the type conversion functions and those acting on
// marks; try and can are added by Table, type by Table in the console.
func addConversion(t map[string]function.Function) {
	t["tobool"] = toFunc(cty.Bool)
	t["tolist"] = toFunc(cty.List(cty.DynamicPseudoType))
	t["tomap"] = toFunc(cty.Map(cty.DynamicPseudoType))
	t["tonumber"] = toFunc(cty.Number)
	t["toset"] = toFunc(cty.Set(cty.DynamicPseudoType))
	t["tostring"] = toFunc(cty.String)
	t["sensitive"] = sensitiveFunc()
	t["nonsensitive"] = nonsensitiveFunc()
	t["issensitive"] = isSensitiveFunc()
	t["ephemeralasnull"] = ephemeralAsNullFunc()
}

// anyValue is a parameter taking every value as it is.
func anyValue(name string) function.Parameter {
	return function.Parameter{
		Name: name, Type: cty.DynamicPseudoType,
		AllowUnknown: true, AllowNull: true, AllowMarked: true, AllowDynamicType: true,
	}
}

// toFunc converts explicitly to want; its messages speak of an explicit
// conversion, and never quote a marked value.
func toFunc(want cty.Type) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{
			Name: "v", Type: cty.DynamicPseudoType,
			AllowNull: true, AllowMarked: true, AllowDynamicType: true,
		}},
		Type: func(args []cty.Value) (cty.Type, error) {
			got := args[0].Type()
			if got.Equals(want) || convert.GetConversionUnsafe(got, want) != nil {
				return want, nil
			}
			switch {
			case got.IsTupleType() && want.IsTupleType():
				return cty.NilType, function.NewArgErrorf(0, "incompatible tuple type for conversion: %s", convert.MismatchMessage(got, want))
			case got.IsObjectType() && want.IsObjectType():
				return cty.NilType, function.NewArgErrorf(0, "incompatible object type for conversion: %s", convert.MismatchMessage(got, want))
			}
			return cty.NilType, function.NewArgErrorf(0, "cannot convert %s to %s", got.FriendlyName(), want.FriendlyNameForConstraint())
		},
		Impl: func(args []cty.Value, ty cty.Type) (cty.Value, error) {
			out, err := convert.Convert(args[0], ty)
			if err == nil {
				return out, nil
			}
			plain, _ := args[0].UnmarkDeep()
			got, wantName := plain.Type().FriendlyName(), want.FriendlyNameForConstraint()
			what := "string"
			if plain.Type() == cty.String && !plain.IsNull() {
				what = strconv.Quote(plain.AsString())
			}
			switch {
			case marks.Contains(args[0], marks.Ephemeral):
				return cty.NilVal, function.NewArgErrorf(0, "cannot convert this ephemeral %s to %s", got, wantName)
			case marks.Contains(args[0], marks.Sensitive):
				return cty.NilVal, function.NewArgErrorf(0, "cannot convert this sensitive %s to %s", got, wantName)
			case plain.Type() == cty.String && want == cty.Bool:
				return cty.NilVal, function.NewArgErrorf(0, `cannot convert %s to bool; only the strings "true" or "false" are allowed`, what)
			case plain.Type() == cty.String && want == cty.Number:
				return cty.NilVal, function.NewArgErrorf(0, "cannot convert %s to number; given string must be a decimal representation of a number", what)
			}
			return cty.NilVal, function.NewArgErrorf(0, "cannot convert %s to %s", got, wantName)
		},
	})
}

// sameType is the Type of a function returning its argument's type.
func sameType(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil }

// sensitiveFunc marks a value sensitive.
func sensitiveFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{anyValue("value")},
		Type:   sameType,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return args[0].Mark(marks.Sensitive), nil
		},
	})
}

// nonsensitiveFunc takes the sensitive mark off a value (not off values
// nested in it); its other marks stay.
func nonsensitiveFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{anyValue("value")},
		Type:   sameType,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v, ms := args[0].Unmark()
			delete(ms, marks.Sensitive)
			return v.WithMarks(ms), nil
		},
	})
}

// isSensitiveFunc reports whether a value is marked sensitive.
func isSensitiveFunc() function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{anyValue("value")},
		Type:         function.StaticReturnType(cty.Bool),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if !args[0].IsKnown() {
				return cty.UnknownVal(cty.Bool), nil
			}
			return cty.BoolVal(args[0].HasMark(marks.Sensitive)), nil
		},
	})
}

// ephemeralAsNullFunc replaces every ephemeral value inside its argument
// with null, keeping the structure and the other marks.
func ephemeralAsNullFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{anyValue("value")},
		Type:   sameType,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.Transform(args[0], func(_ cty.Path, v cty.Value) (cty.Value, error) {
				ms := v.Marks()
				_, ephemeral := ms[marks.Ephemeral]
				delete(ms, marks.Ephemeral)
				switch {
				case v.IsNull():
					return cty.NullVal(v.Type()).WithMarks(ms), nil
				case !v.IsKnown(): // an unknown stays unknown, ephemeral or not
					return cty.UnknownVal(v.Type()).WithMarks(ms), nil
				case ephemeral:
					return cty.NullVal(v.Type()).WithMarks(ms), nil
				}
				return v, nil
			})
		},
	})
}

// typeType is the capsule type carrying a cty.Type as a value, for the
// console's type().
var typeType = sync.OnceValue(func() cty.Type {
	return cty.Capsule("type", reflect.TypeOf(cty.Type{}))
})

// typeFunc is the console's type(): the type of its argument, which
// TypeOf reads back.
func typeFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{
			Name: "value", Type: cty.DynamicPseudoType,
			AllowUnknown: true, AllowNull: true, AllowDynamicType: true,
		}},
		Type: function.StaticReturnType(typeType()),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			ty := args[0].Type()
			return cty.CapsuleVal(typeType(), &ty), nil
		},
	})
}

// TypeOf is the type a type() call returned, and whether v is one.
func TypeOf(v cty.Value) (cty.Type, bool) {
	v, _ = v.UnmarkDeep()
	if !v.Type().Equals(typeType()) || !v.IsKnown() || v.IsNull() {
		return cty.NilType, false
	}
	return *v.EncapsulatedValue().(*cty.Type), true
}
