package tfschema

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/kyku/action/internal/value"
)

// TestDirectIsInferConvert holds configValue's shortcut (direct) to the
// way it would otherwise go, infer and convert.Convert: for every value
// direct takes, the same cty value; every other value it leaves alone.
func TestDirectIsInferConvert(t *testing.T) {
	types := []cty.Type{cty.String, cty.Number, cty.Bool, cty.Map(cty.String), cty.List(cty.String), cty.Set(cty.String),
		cty.Map(cty.Number), cty.List(cty.Bool), cty.DynamicPseudoType}
	values := []any{
		"x", "", "300", "true", "é", "e\u0301", "a" + value.Unknown, 300.0, 0.1, math.Copysign(0, -1), 1e300, math.Inf(1), true, false,
		map[string]any{}, map[string]any{"a": "1", "b": "2"}, map[string]any{"a": 1.0}, map[string]any{"e\u0301": "x", "é": "y"},
		map[string]any{"a": nil}, map[string]any{"a": value.Unknown}, map[string]any{"ü": "x"},
		[]any{}, []any{"a", "b", "a"}, []any{"a", nil}, []any{"a", 1.0}, []any{value.Unknown}, []any{"e\u0301"},
	}
	rng := rand.New(rand.NewPCG(39, 1))
	for range 200 {
		values = append(values, randomStrings(rng))
	}
	for _, ty := range types {
		for _, v := range values {
			got, ok := direct(v, ty)
			if !ok {
				continue
			}
			in, err := infer(v, nil)
			if err != nil {
				t.Errorf("direct(%#v, %s) took a value infer refuses: %v", v, ty.FriendlyName(), err)
				continue
			}
			want, err := convert.Convert(in, ty)
			if err != nil {
				t.Errorf("direct(%#v, %s) took a value convert refuses: %v", v, ty.FriendlyName(), err)
				continue
			}
			if !got.RawEquals(want) {
				t.Errorf("direct(%#v, %s) = %#v, infer and convert give %#v", v, ty.FriendlyName(), got, want)
			}
		}
	}
	// and it takes what a null_resource's triggers are, the case it is for
	if _, ok := direct(map[string]any{"name": "site-00-001", "cidr": "10.0.1.0/24"}, cty.Map(cty.String)); !ok {
		t.Error("direct leaves a map of plain strings to infer and convert")
	}
}

// randomStrings is a map or list of short strings, some of them unknown,
// non-ASCII or not strings.
func randomStrings(rng *rand.Rand) any {
	pick := func() any {
		switch rng.IntN(12) {
		case 0:
			return value.Unknown
		case 1:
			return nil
		case 2:
			return float64(rng.IntN(100))
		case 3:
			return "ä"
		}
		return fmt.Sprintf("s%d", rng.IntN(4))
	}
	n := rng.IntN(4)
	if rng.IntN(2) == 0 {
		l := make([]any, n)
		for i := range l {
			l[i] = pick()
		}
		return l
	}
	m := make(map[string]any, n)
	for range n {
		k := fmt.Sprintf("k%d", rng.IntN(6))
		if rng.IntN(10) == 0 {
			k = "ké"
		}
		m[k] = pick()
	}
	return m
}

// TestProposesItself holds ProposedNew's shortcut for a create (config
// itself) to the proposal it stands for, proposedBlock against the empty
// prior value: equal wherever it is taken, and taken for what Config
// gives.
func TestProposesItself(t *testing.T) {
	b := testBlock()
	ty := b.ImpliedType()
	full := func(config cty.Value) cty.Value { return proposedBlock(b, EmptyValue(b), config) }
	configs := map[string]cty.Value{}
	for name, props := range map[string]map[string]any{
		"least":    {"name": "web"},
		"most":     {"name": "web", "value": "v", "size": 3.0, "tags": map[string]any{"a": "b"}, "zones": []any{"a"}, "secret": "s", "serial": 2.0, "endpoints": []any{map[string]any{"host": "h"}}, "rule": []any{map[string]any{"port": 80.0}, map[string]any{"port": 443.0, "cidr": "0.0.0.0/0"}}, "timeouts": map[string]any{"create": "1m"}, "meta": map[string]any{"note": "n"}, "member": []any{map[string]any{"user": "ann"}}},
		"dynamic":  {"name": "web", "extra": []any{1.0, "x"}},
		"unknowns": {"name": value.Unknown, "rule": value.Unknown, "member": []any{map[string]any{"user": value.Unknown}}, "timeouts": value.Unknown},
	} {
		configs[name] = mustConfig(t, b, props)
	}
	// values Config does not give, which the proposal changes
	withAttr := func(name string, v cty.Value) cty.Value {
		m := mustConfig(t, b, map[string]any{"name": "web"}).AsValueMap()
		m[name] = v
		return cty.ObjectVal(m)
	}
	ruleTy := b.BlockTypes["rule"].Block.ImpliedType()
	configs["an unknown rule"] = withAttr("rule", cty.ListVal([]cty.Value{cty.UnknownVal(ruleTy)}))
	configs["a null rule"] = withAttr("rule", cty.ListVal([]cty.Value{cty.NullVal(ruleTy)}))
	configs["an unknown group"] = withAttr("meta", cty.UnknownVal(b.BlockTypes["meta"].Block.ImpliedType()))
	configs["a null group"] = withAttr("meta", cty.NullVal(b.BlockTypes["meta"].Block.ImpliedType()))
	configs["a computed id null of another type"] = withAttr("id", cty.NullVal(cty.Number))
	configs["unknown"] = cty.UnknownVal(ty)

	for name, config := range configs {
		t.Run(name, func(t *testing.T) {
			want := full(config)
			if got := ProposedNew(b, cty.NullVal(ty), config); !got.RawEquals(want) {
				t.Errorf("ProposedNew of a create:\n got %#v\nwant %#v", got, want)
			}
			if proposesItself(b, config) && !want.RawEquals(config) {
				t.Errorf("proposesItself, but the proposal is not config")
			}
		})
	}
	// A block type holding a dynamically typed attribute ("extra") is left
	// to proposedBlock (a value's type is not the block's).
	for _, name := range []string{"least", "most", "unknowns"} {
		if !proposesItself(b, configs[name]) {
			t.Errorf("%s: a create's proposal from what Config gives is built again", name)
		}
	}
}

// TestFinishedIsComputed: what Finish keeps of a block is what its
// methods compute of the same block unfinished.
func TestFinishedIsComputed(t *testing.T) {
	finished, unfinished := testBlock(), testBlock()
	unfinished.derived, unfinished.implied = nil, cty.NilType
	clear := func(b *Block) {
		for _, nb := range b.BlockTypes {
			nb.derived, nb.implied = nil, cty.NilType
		}
		for _, a := range b.Attributes {
			if a.NestedType != nil {
				a.NestedType.elem, a.NestedType.implied, a.NestedType.attrNames = cty.NilType, cty.NilType, nil
			}
		}
	}
	clear(unfinished)
	if !EmptyValue(finished).RawEquals(EmptyValue(unfinished)) {
		t.Errorf("EmptyValue: kept %#v, computed %#v", EmptyValue(finished), EmptyValue(unfinished))
	}
	if !finished.ImpliedType().Equals(unfinished.ImpliedType()) {
		t.Errorf("ImpliedType: kept %#v, computed %#v", finished.ImpliedType(), unfinished.ImpliedType())
	}
	ep := finished.Attributes["endpoints"].NestedType
	if !ep.ImpliedType().Equals(unfinished.Attributes["endpoints"].NestedType.ImpliedType()) || !ep.elemType().Equals(unfinished.Attributes["endpoints"].NestedType.elemType()) {
		t.Errorf("a nested type's types: kept %#v, %#v", ep.ImpliedType(), ep.elemType())
	}
	for _, b := range []*Block{finished, unfinished} {
		if !b.holdsSensitive() || b.holdsWriteOnly() {
			t.Errorf("holds sensitive %v, write-only %v; want true, false", b.holdsSensitive(), b.holdsWriteOnly())
		}
	}
}
