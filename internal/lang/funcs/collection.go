package funcs

import (
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/kyku/action/internal/lang/marks"
)

// addCollection adds the collection functions, and list and map, which
// Terraform 0.12 removed: calling them says what to write instead.
func addCollection(t map[string]function.Function) {
	t["alltrue"] = allTrueFunc()
	t["anytrue"] = anyTrueFunc()
	t["chunklist"] = stdlib.ChunklistFunc
	t["coalesce"] = coalesceFunc()
	t["coalescelist"] = stdlib.CoalesceListFunc
	t["compact"] = stdlib.CompactFunc
	t["concat"] = stdlib.ConcatFunc
	t["contains"] = stdlib.ContainsFunc
	t["distinct"] = stdlib.DistinctFunc
	t["element"] = stdlib.ElementFunc
	t["flatten"] = stdlib.FlattenFunc
	t["index"] = indexFunc() // stdlib's index takes its arguments the other way round
	t["keys"] = stdlib.KeysFunc
	t["length"] = lengthFunc()
	t["lookup"] = lookupFunc()
	t["matchkeys"] = matchkeysFunc()
	t["merge"] = stdlib.MergeFunc
	t["one"] = oneFunc()
	t["range"] = stdlib.RangeFunc
	t["reverse"] = stdlib.ReverseListFunc
	t["setintersection"] = stdlib.SetIntersectionFunc
	t["setproduct"] = stdlib.SetProductFunc
	t["setsubtract"] = stdlib.SetSubtractFunc
	t["setunion"] = stdlib.SetUnionFunc
	t["slice"] = stdlib.SliceFunc
	t["sort"] = stdlib.SortFunc
	t["sum"] = sumFunc()
	t["transpose"] = transposeFunc()
	t["values"] = stdlib.ValuesFunc
	t["zipmap"] = stdlib.ZipmapFunc
	t["list"] = removedFunc("list", "tolist([ ... ]) syntax to write a literal list")
	t["map"] = removedFunc("map", "tomap({ ... }) syntax to write a literal map")
}

// lengthFunc counts a string's characters (grapheme clusters), a
// collection's elements or a structure's attributes. A tuple's or an
// object's length is known from its type, even when its value is not.
func lengthFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{
			Name: "value", Type: cty.DynamicPseudoType,
			AllowDynamicType: true, AllowUnknown: true, AllowMarked: true,
		}},
		Type: func(args []cty.Value) (cty.Type, error) {
			ty := args[0].Type()
			if ty == cty.String || ty == cty.DynamicPseudoType || ty.IsCollectionType() || ty.IsTupleType() || ty.IsObjectType() {
				return cty.Number, nil
			}
			return cty.Number, errors.New("argument must be a string, a collection type, or a structural type")
		},
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v, vm := args[0].Unmark()
			ty := v.Type()
			switch {
			case ty == cty.DynamicPseudoType:
				return cty.UnknownVal(cty.Number).WithMarks(vm), nil
			case ty.IsTupleType():
				return cty.NumberIntVal(int64(len(ty.TupleElementTypes()))).WithMarks(vm), nil
			case ty.IsObjectType():
				return cty.NumberIntVal(int64(len(ty.AttributeTypes()))).WithMarks(vm), nil
			case ty == cty.String:
				n, err := stdlib.Strlen(v)
				return n.WithMarks(vm), err
			default:
				return v.Length().WithMarks(vm), nil
			}
		},
	})
}

// allTrueFunc is true when every element is true (so for none); a null
// element counts as false. It is unknown from the first unknown element
// met before a false one.
func allTrueFunc() function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{{Name: "list", Type: cty.List(cty.Bool)}},
		Type:         function.StaticReturnType(cty.Bool),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			for it := args[0].ElementIterator(); it.Next(); {
				_, v := it.Element()
				switch {
				case !v.IsKnown():
					return cty.UnknownVal(cty.Bool), nil
				case v.IsNull() || v.False():
					return cty.False, nil
				}
			}
			return cty.True, nil
		},
	})
}

// anyTrueFunc is true when some element is true; nulls count as false.
// Without a true element, an unknown one makes it unknown.
func anyTrueFunc() function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{{Name: "list", Type: cty.List(cty.Bool)}},
		Type:         function.StaticReturnType(cty.Bool),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			unknown := false
			for it := args[0].ElementIterator(); it.Next(); {
				_, v := it.Element()
				switch {
				case !v.IsKnown():
					unknown = true
				case !v.IsNull() && v.True():
					return cty.True, nil
				}
			}
			if unknown {
				return cty.UnknownVal(cty.Bool), nil
			}
			return cty.False, nil
		},
	})
}

// coalesceFunc returns the first argument that is neither null nor an
// empty string, all of them converted to one type.
func coalesceFunc() function.Function {
	return function.New(&function.Spec{
		VarParam: &function.Parameter{
			Name: "vals", Type: cty.DynamicPseudoType,
			AllowUnknown: true, AllowDynamicType: true, AllowNull: true,
		},
		Type: func(args []cty.Value) (cty.Type, error) {
			tys := make([]cty.Type, len(args))
			for i, a := range args {
				tys[i] = a.Type()
			}
			ty, _ := convert.UnifyUnsafe(tys)
			if ty == cty.NilType {
				return cty.NilType, errors.New("all arguments must have the same type")
			}
			return ty, nil
		},
		RefineResult: notNull,
		Impl: func(args []cty.Value, ty cty.Type) (cty.Value, error) {
			for _, a := range args {
				v, err := convert.Convert(a, ty)
				if err != nil {
					return cty.UnknownVal(ty), err
				}
				switch {
				case !v.IsKnown():
					return cty.UnknownVal(ty), nil
				case v.IsNull():
				case ty == cty.String && v.AsString() == "":
				default:
					return v, nil
				}
			}
			return cty.NilVal, errors.New("no non-null, non-empty-string arguments")
		},
	})
}

// indexFunc finds the first index of value in a list or tuple.
func indexFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{
			{Name: "list", Type: cty.DynamicPseudoType},
			{Name: "value", Type: cty.DynamicPseudoType},
		},
		Type:         function.StaticReturnType(cty.Number),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			list := args[0]
			if ty := list.Type(); !ty.IsListType() && !ty.IsTupleType() {
				return cty.NilVal, errors.New("argument must be a list or tuple")
			}
			if list.LengthInt() == 0 {
				return cty.NilVal, errors.New("cannot search an empty list")
			}
			for it := list.ElementIterator(); it.Next(); {
				i, v := it.Element()
				eq, err := stdlib.Equal(v, args[1])
				if err != nil {
					return cty.NilVal, err
				}
				if !eq.IsKnown() {
					return cty.UnknownVal(cty.Number), nil
				}
				if eq.True() {
					return i, nil
				}
			}
			return cty.NilVal, errors.New("item not found")
		},
	})
}

// lookupFunc reads one key of a map or attribute of an object, or the
// default when it is not there. The marks of the map and of the key go
// onto the result.
func lookupFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{
			{Name: "inputMap", Type: cty.DynamicPseudoType, AllowMarked: true},
			{Name: "key", Type: cty.String, AllowMarked: true, AllowUnknown: true},
		},
		VarParam: &function.Parameter{
			Name: "default", Type: cty.DynamicPseudoType,
			AllowUnknown: true, AllowDynamicType: true, AllowNull: true, AllowMarked: true,
		},
		Type: func(args []cty.Value) (cty.Type, error) {
			if len(args) > 3 {
				return cty.NilType, fmt.Errorf("lookup() takes two or three arguments, got %d", len(args))
			}
			ty := args[0].Type()
			switch {
			case ty.IsObjectType():
				key, _ := args[1].Unmark()
				if !key.IsKnown() {
					return cty.DynamicPseudoType, nil
				}
				if name := key.AsString(); ty.HasAttribute(name) {
					return ty.AttributeType(name), nil
				} else if len(args) < 3 {
					return cty.DynamicPseudoType, function.NewArgErrorf(0, "the given object has no attribute %q", name)
				}
				return args[2].Type(), nil
			case ty.IsMapType():
				if len(args) == 3 {
					if _, err := convert.Convert(args[2], ty.ElementType()); err != nil {
						return cty.NilType, function.NewArgErrorf(2, "the default value must have the same type as the map elements")
					}
				}
				return ty.ElementType(), nil
			}
			return cty.NilType, function.NewArgErrorf(0, "lookup() requires a map as the first argument")
		},
		Impl: func(args []cty.Value, ty cty.Type) (cty.Value, error) {
			m, mm := args[0].Unmark()
			key, km := args[1].Unmark()
			if !m.IsKnown() || !key.IsKnown() {
				return cty.UnknownVal(ty).WithMarks(mm, km), nil
			}
			name := key.AsString()
			if m.Type().IsObjectType() {
				if m.Type().HasAttribute(name) {
					return m.GetAttr(name).WithMarks(mm, km), nil
				}
			} else if m.HasIndex(key) == cty.True {
				return m.Index(key).WithMarks(mm, km), nil
			}
			if len(args) == 3 {
				d, err := convert.Convert(args[2], ty)
				if err != nil {
					return cty.NilVal, err
				}
				return d.WithMarks(mm, km), nil
			}
			return cty.UnknownVal(cty.DynamicPseudoType), fmt.Errorf("lookup failed to find key %s", quoted(name, km))
		},
	})
}

// quoted is s in quotes, or what stands for it when marks hide it.
func quoted(s string, ms ...cty.ValueMarks) string {
	if r := marks.Redacted(ms...); r != "" {
		return r
	}
	return fmt.Sprintf("%q", s)
}

// matchkeysFunc keeps the elements of values whose element at the same
// index of keys is in searchset.
func matchkeysFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{
			{Name: "values", Type: cty.List(cty.DynamicPseudoType)},
			{Name: "keys", Type: cty.List(cty.DynamicPseudoType)},
			{Name: "searchset", Type: cty.List(cty.DynamicPseudoType)},
		},
		Type: func(args []cty.Value) (cty.Type, error) {
			if ty, _ := convert.UnifyUnsafe([]cty.Type{args[1].Type(), args[2].Type()}); ty == cty.NilType {
				return cty.NilType, errors.New("keys and searchset must be of the same type")
			}
			return args[0].Type(), nil
		},
		RefineResult: notNull,
		Impl: func(args []cty.Value, ty cty.Type) (cty.Value, error) {
			values := args[0]
			ety := ty.ElementType()
			if values.LengthInt() != args[1].LengthInt() {
				return cty.NilVal, errors.New("length of keys and values should be equal")
			}
			common, _ := convert.UnifyUnsafe([]cty.Type{args[1].Type(), args[2].Type()})
			keys, _ := convert.Convert(args[1], common)
			search, _ := convert.Convert(args[2], common)
			if search.LengthInt() == 0 {
				return cty.ListValEmpty(ety), nil
			}
			if !values.IsWhollyKnown() || !keys.IsWhollyKnown() {
				return cty.UnknownVal(ty), nil
			}
			var out []cty.Value
			for it := keys.ElementIterator(); it.Next(); {
				i, k := it.Element()
				for st := search.ElementIterator(); st.Next(); {
					_, s := st.Element()
					eq, err := stdlib.Equal(k, s)
					if err != nil {
						return cty.NilVal, err
					}
					if !eq.IsKnown() {
						return cty.UnknownVal(ty), nil
					}
					if eq.True() {
						out = append(out, values.Index(i))
						break
					}
				}
			}
			if len(out) == 0 {
				return cty.ListValEmpty(ety), nil
			}
			return cty.ListVal(out), nil
		},
	})
}

const oneElementOrNone = "must be a list, set, or tuple value with either zero or one elements"

// oneFunc is the only element of a collection, or null when it has none.
func oneFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType}},
		Type: func(args []cty.Value) (cty.Type, error) {
			ty := args[0].Type()
			switch {
			case ty.IsListType() || ty.IsSetType():
				return ty.ElementType(), nil
			case ty.IsTupleType() && len(ty.TupleElementTypes()) == 0:
				return cty.DynamicPseudoType, nil
			case ty.IsTupleType() && len(ty.TupleElementTypes()) == 1:
				return ty.TupleElementTypes()[0], nil
			}
			return cty.NilType, function.NewArgErrorf(0, oneElementOrNone)
		},
		Impl: func(args []cty.Value, ty cty.Type) (cty.Value, error) {
			v := args[0]
			if !v.Length().IsKnown() { // a set holding unknowns
				return cty.UnknownVal(ty), nil
			}
			switch v.LengthInt() {
			case 0:
				return cty.NullVal(ty), nil
			case 1:
				it := v.ElementIterator()
				it.Next()
				_, e := it.Element()
				return e, nil
			}
			return cty.NilVal, function.NewArgErrorf(0, oneElementOrNone)
		},
	})
}

const numbersOnly = "argument must be list, set, or tuple of number values"

// sumFunc adds up the numbers of a list, set or tuple.
func sumFunc() function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType}},
		Type:         function.StaticReturnType(cty.Number),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (ret cty.Value, err error) {
			list := args[0]
			ty := list.Type()
			if !list.CanIterateElements() {
				return cty.NilVal, function.NewArgErrorf(0, "cannot sum noniterable")
			}
			if !list.IsWhollyKnown() && (ty.IsListType() || ty.IsSetType() || ty.IsTupleType()) {
				return cty.UnknownVal(cty.Number), nil
			}
			if list.LengthInt() == 0 {
				return cty.NilVal, function.NewArgErrorf(0, "cannot sum an empty list")
			}
			if !ty.IsListType() && !ty.IsSetType() && !ty.IsTupleType() {
				return cty.NilVal, function.NewArgErrorf(0, "argument must be list, set, or tuple. Received %s", ty.FriendlyName())
			}
			defer func() { // big.Float panics adding +Inf to -Inf
				if r := recover(); r != nil {
					if _, ok := r.(big.ErrNaN); !ok {
						panic(r)
					}
					ret, err = cty.NilVal, errors.New("can't compute sum of opposing infinities")
				}
			}()
			total := cty.Zero
			for it := list.ElementIterator(); it.Next(); {
				_, e := it.Element()
				if e.IsNull() {
					return cty.NilVal, function.NewArgErrorf(0, numbersOnly)
				}
				n, err := convert.Convert(e, cty.Number)
				if err != nil {
					return cty.NilVal, function.NewArgErrorf(0, numbersOnly)
				}
				total = total.Add(n)
			}
			return total, nil
		},
	})
}

// transposeFunc swaps a map of lists of strings: each string becomes a
// key whose list holds, sorted, the keys it appeared under.
func transposeFunc() function.Function {
	ty := cty.Map(cty.List(cty.String))
	return function.New(&function.Spec{
		Params:       []function.Parameter{{Name: "values", Type: ty}},
		Type:         function.StaticReturnType(ty),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			in := args[0]
			if !in.IsWhollyKnown() {
				return cty.UnknownVal(ty), nil
			}
			byValue := map[string][]string{}
			for it := in.ElementIterator(); it.Next(); {
				k, list := it.Element()
				key := k.AsString()
				if list.IsNull() {
					return cty.NilVal, function.NewArgErrorf(0, "cannot use null list for [%q]", key)
				}
				for lt := list.ElementIterator(); lt.Next(); {
					i, s := lt.Element()
					if s.IsNull() {
						return cty.NilVal, function.NewArgErrorf(0, "cannot use null string for [%q][%s]", key, i.AsBigFloat().Text('f', -1))
					}
					byValue[s.AsString()] = append(byValue[s.AsString()], key)
				}
			}
			if len(byValue) == 0 {
				return cty.MapValEmpty(cty.List(cty.String)), nil
			}
			out := make(map[string]cty.Value, len(byValue))
			for s, keys := range byValue {
				slices.Sort(keys)
				vals := make([]cty.Value, len(keys))
				for i, k := range keys {
					vals[i] = cty.StringVal(k)
				}
				out[s] = cty.ListVal(vals)
			}
			return cty.MapVal(out), nil
		},
	})
}

// removedFunc is a function Terraform 0.12 removed; calling it fails
// with what to write instead.
func removedFunc(name, instead string) function.Function {
	err := fmt.Errorf("the %q function was deprecated in Terraform v0.12 and is not available in OpenTofu; use %s", name, instead)
	return function.New(&function.Spec{
		VarParam: &function.Parameter{
			Name: "vals", Type: cty.DynamicPseudoType,
			AllowUnknown: true, AllowDynamicType: true, AllowNull: true,
		},
		Type: func([]cty.Value) (cty.Type, error) { return cty.DynamicPseudoType, err },
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) { return cty.DynamicVal, err },
	})
}
