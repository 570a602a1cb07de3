package tfschema

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kyku/action/internal/suggest"
	"github.com/kyku/action/internal/value"
	"github.com/zclconf/go-cty/cty"
)

// CheckPath checks that steps read into a value of type t as Terraform
// reads into one: an element of a list or tuple by number, an entry of a
// map or an attribute of an object by key; a set's elements and a
// primitive have nothing to read. A dynamic type takes any step (its
// value decides). The error names the first step that does not apply.
// An index past the end of a list, or a key a map lacks, shows only in
// the value: Walk reports it. A splat ([*]) reads the rest from each
// element of a list, set or tuple, and from any other value as a list of
// itself, as Terraform's does.
func CheckPath(t cty.Type, steps []value.Step) error {
	for i, st := range steps {
		switch {
		case t == cty.DynamicPseudoType:
			return nil
		case st.Splat():
			switch {
			case t.IsListType() || t.IsSetType():
				t = t.ElementType()
			case t.IsTupleType():
				for n, et := range t.TupleElementTypes() {
					if err := CheckPath(et, steps[i+1:]); err != nil {
						return fmt.Errorf("%s (element %d): %w", st, n, err)
					}
				}
				return nil
			}
		case t.IsListType():
			if st.ByKey() {
				return fmt.Errorf("%s: a list has elements by number, not by key", st)
			}
			t = t.ElementType()
		case t.IsTupleType():
			elems := t.TupleElementTypes()
			if st.ByKey() {
				return fmt.Errorf("%s: a tuple has elements by number, not by key", st)
			}
			if st.Index >= len(elems) {
				return fmt.Errorf("%s: index out of range (the tuple has %d elements)", st, len(elems))
			}
			t = elems[st.Index]
		case t.IsMapType():
			if !st.ByKey() {
				return fmt.Errorf("%s: a map has entries by key, not by number", st)
			}
			t = t.ElementType()
		case t.IsObjectType():
			if !st.ByKey() {
				return fmt.Errorf("%s: an object has attributes by name, not by number", st)
			}
			if !t.HasAttribute(st.Key) {
				names := slices.Sorted(maps.Keys(t.AttributeTypes()))
				hint := suggest.DidYouMean(st.Key, names)
				if hint == "" {
					hint = " (it has: " + strings.Join(names, ", ") + ")"
				}
				return fmt.Errorf("%s: the object has no attribute %q%s", st, st.Key, hint)
			}
			t = t.AttributeType(st.Key)
		case t.IsSetType():
			return fmt.Errorf("%s: a set's elements have no number or key to read them by", st)
		default:
			return fmt.Errorf("%s: a %s has nothing to read into", st, t.FriendlyName())
		}
	}
	return nil
}

// PathType is the type steps read from a value of type t, as CheckPath
// reads into it; ok is false where the type does not say (a dynamic
// type, a splat, a step CheckPath refuses).
func PathType(t cty.Type, steps []value.Step) (cty.Type, bool) {
	for _, st := range steps {
		switch {
		case t == cty.DynamicPseudoType || st.Splat():
			return cty.NilType, false
		case t.IsListType() && !st.ByKey(), t.IsMapType() && st.ByKey():
			t = t.ElementType()
		case t.IsTupleType() && !st.ByKey() && st.Index < len(t.TupleElementTypes()):
			t = t.TupleElementType(st.Index)
		case t.IsObjectType() && st.ByKey() && t.HasAttribute(st.Key):
			t = t.AttributeType(st.Key)
		default:
			return cty.NilType, false
		}
	}
	return t, t != cty.DynamicPseudoType
}
