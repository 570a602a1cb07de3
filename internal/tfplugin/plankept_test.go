package tfplugin_test

import (
	"math/rand/v2"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/tfplugin"
)

// keptRef is what PlanKept stands for, on the values: every known value
// of planned is in got (unknown parts of planned may be anything; a set
// not wholly known, too), as a plan's check of the new state has it.
func keptRef(planned, got cty.Value) bool {
	if !planned.IsKnown() {
		return true
	}
	if !got.IsKnown() || planned.IsNull() != got.IsNull() {
		return false
	}
	if planned.IsNull() {
		return true
	}
	ty := planned.Type()
	switch {
	case ty.IsPrimitiveType():
		return planned.RawEquals(got)
	case ty.IsListType(), ty.IsTupleType(), ty.IsMapType(), ty.IsObjectType():
		if !got.CanIterateElements() || !ty.IsObjectType() && planned.LengthInt() != got.LengthInt() {
			return false
		}
		for it := planned.ElementIterator(); it.Next(); {
			k, pv := it.Element()
			var step cty.PathStep = cty.IndexStep{Key: k}
			if ty.IsObjectType() {
				step = cty.GetAttrStep{Name: k.AsString()}
			}
			gv, err := step.Apply(got)
			if err != nil || !keptRef(pv, gv) {
				return false
			}
		}
		return true
	}
	if ty.IsSetType() && !planned.IsWhollyKnown() {
		return true
	}
	return planned.RawEquals(got)
}

func mustMsgpack(t *testing.T, v cty.Value, ty cty.Type) []byte {
	t.Helper()
	b, err := tfplugin.AppendMsgpack(nil, v, ty)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPlanKept: a null_resource's new state keeps its plan, whatever the
// order of its map's keys; a changed value, a value planned and not
// given, one planned null and set, are not kept.
func TestPlanKept(t *testing.T) {
	ty := cty.Object(map[string]cty.Type{"id": cty.String, "triggers": cty.Map(cty.String), "n": cty.List(cty.Number)})
	obj := func(id cty.Value, a string) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"id": id, "triggers": cty.MapVal(map[string]cty.Value{"a": cty.StringVal(a), "b": cty.StringVal("2")}),
			"n": cty.ListVal([]cty.Value{cty.NumberIntVal(1)})})
	}
	planned := mustMsgpack(t, obj(cty.UnknownVal(cty.String).RefineNotNull(), "1"), ty)
	got := mustMsgpack(t, obj(cty.StringVal("5577006791947779410"), "1"), ty)
	if !tfplugin.PlanKept(planned, got, ty) {
		t.Error("a new state with the planned unknown id known: not kept")
	}
	// the same new state, its object's and map's keys in the reverse order
	reversed := []byte{0x83, 0xa8, 't', 'r', 'i', 'g', 'g', 'e', 'r', 's', 0x82, 0xa1, 'b', 0xa1, '2', 0xa1, 'a', 0xa1, '1',
		0xa1, 'n', 0x91, 0x01, 0xa2, 'i', 'd', 0xa1, 'x'}
	if !tfplugin.PlanKept(planned, reversed, ty) {
		t.Error("a new state written in another order: not kept")
	}
	for name, g := range map[string][]byte{
		"a changed trigger":      mustMsgpack(t, obj(cty.StringVal("x"), "9"), ty),
		"a duplicated key":       {0x83, 0xa2, 'i', 'd', 0xa1, 'x', 0xa2, 'i', 'd', 0xa1, 'x', 0xa1, 'n', 0x91, 0x01},
		"null":                   {0xc0},
		"unknown":                mustMsgpack(t, cty.UnknownVal(ty), ty),
		"truncated":              got[:len(got)-1],
		"the number as a float":  mustMsgpack(t, cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("x"), "triggers": cty.MapVal(map[string]cty.Value{"a": cty.StringVal("1"), "b": cty.StringVal("2")}), "n": cty.ListVal([]cty.Value{cty.NumberFloatVal(1.5)})}), ty),
		"a trigger left out":     mustMsgpack(t, cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("x"), "triggers": cty.MapVal(map[string]cty.Value{"a": cty.StringVal("1")}), "n": cty.ListVal([]cty.Value{cty.NumberIntVal(1)})}), ty),
		"an element more":        mustMsgpack(t, cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("x"), "triggers": cty.MapVal(map[string]cty.Value{"a": cty.StringVal("1"), "b": cty.StringVal("2")}), "n": cty.ListVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(1)})}), ty),
		"the map unknown":        mustMsgpack(t, cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("x"), "triggers": cty.UnknownVal(cty.Map(cty.String)), "n": cty.ListVal([]cty.Value{cty.NumberIntVal(1)})}), ty),
		"trailing garbage first": append([]byte{0xc1}, got...),
	} {
		if tfplugin.PlanKept(planned, g, ty) {
			t.Errorf("%s: kept", name)
		}
	}
}

// FuzzPlanKept: PlanKept says kept only of what is (keptRef of the
// decoded values), for random types, plans and new states: the plan with
// its unknowns made known, or another value of its type.
func FuzzPlanKept(f *testing.F) {
	for seed := range uint64(500) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		g := valueGen{r: rand.New(rand.NewPCG(seed, 7)), budget: 5_000}
		ty := g.typ(3)
		planned := g.value(ty, 3)
		got := planned
		if g.r.IntN(4) == 0 {
			got = g.value(ty, 3)
		} else {
			got, _ = cty.Transform(planned, func(_ cty.Path, v cty.Value) (cty.Value, error) {
				if v.IsKnown() || g.r.IntN(3) == 0 {
					return v, nil
				}
				return g.value(g.concrete(v.Type()), 1), nil
			})
		}
		pb, err1 := tfplugin.AppendMsgpack(nil, planned, ty)
		gb, err2 := tfplugin.AppendMsgpack(nil, got, ty)
		if err1 != nil || err2 != nil {
			return // a value Transform made of another type than ty allows
		}
		if tfplugin.PlanKept(pb, gb, ty) && !keptRef(planned, got) {
			t.Fatalf("PlanKept of\n%#v\nby\n%#v", planned, got)
		}
	})
}
