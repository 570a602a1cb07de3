package tfplugin_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfschema"
	"github.com/kyku/action/internal/value"
)

// checkEncodeConfig asserts that EncodeConfig gives the bytes and the
// diagnostics of tfschema.Config and AppendMsgpack, the way it stands for.
func checkEncodeConfig(t *testing.T, b *tfschema.Block, props map[string]any) tfplugin.EncodedConfig {
	t.Helper()
	want, wantDs := tfschema.Config(b, props)
	got, ds, err := tfplugin.EncodeConfig(b, props)
	if err != nil {
		t.Fatalf("EncodeConfig(%#v): %v", props, err)
	}
	if fmt.Sprint(ds) != fmt.Sprint(wantDs) {
		t.Fatalf("EncodeConfig(%#v): diagnostics %v, tfschema.Config's %v", props, ds, wantDs)
	}
	if got.Known != want.IsWhollyKnown() {
		t.Errorf("EncodeConfig(%#v): Known %v, want %v", props, got.Known, want.IsWhollyKnown())
	}
	if wantDs.HasErrors() {
		if got.Msgpack != nil {
			t.Errorf("EncodeConfig(%#v): bytes beside errors", props)
		}
		return got
	}
	wantBytes, err := tfplugin.AppendMsgpack(nil, want, b.ImpliedType())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Msgpack, wantBytes) {
		t.Fatalf("EncodeConfig(%#v):\n got % x\nwant % x", props, got.Msgpack, wantBytes)
	}
	if got.Value != cty.NilVal && !got.Value.RawEquals(want) {
		t.Errorf("EncodeConfig(%#v): Value %#v, want %#v", props, got.Value, want)
	}
	// A configuration written directly is a create's proposed new state
	// as it is (tfprovider sends its bytes as both).
	if proposed := tfschema.ProposedNew(b, cty.NullVal(b.ImpliedType()), want); got.Value == cty.NilVal && !proposed.RawEquals(want) {
		t.Errorf("EncodeConfig(%#v) wrote directly a configuration whose proposal differs:\n got %#v\nwant %#v", props, want, proposed)
	}
	return got
}

func configBlock() *tfschema.Block {
	group := tfschema.Block{Attributes: map[string]*tfschema.Attribute{"note": {Type: cty.String, Optional: true}}}
	b := &tfschema.Block{
		Attributes: map[string]*tfschema.Attribute{
			"name":     {Type: cty.String, Optional: true},
			"size":     {Type: cty.Number, Optional: true},
			"on":       {Type: cty.Bool, Optional: true},
			"triggers": {Type: cty.Map(cty.String), Optional: true},
			"zones":    {Type: cty.List(cty.String), Optional: true},
			"set":      {Type: cty.Set(cty.String), Optional: true},
			"extra":    {Type: cty.DynamicPseudoType, Optional: true},
			"id":       {Type: cty.String, Computed: true},
			"old":      {Type: cty.String, Optional: true, Deprecated: true},
			"need":     {Type: cty.String, Optional: true},
			"nested": {Optional: true, NestedType: &tfschema.Object{Nesting: tfschema.NestingSingle, Attributes: map[string]*tfschema.Attribute{
				"host": {Type: cty.String, Optional: true},
			}}},
		},
		BlockTypes: map[string]*tfschema.NestedBlock{
			"rule":     {Nesting: tfschema.NestingList, Block: tfschema.Block{Attributes: map[string]*tfschema.Attribute{"port": {Type: cty.Number, Optional: true}}}},
			"members":  {Nesting: tfschema.NestingSet, Block: tfschema.Block{Attributes: map[string]*tfschema.Attribute{"user": {Type: cty.String, Optional: true}}}},
			"labels":   {Nesting: tfschema.NestingMap, Block: tfschema.Block{Attributes: map[string]*tfschema.Attribute{"v": {Type: cty.String, Optional: true}}}},
			"timeouts": {Nesting: tfschema.NestingSingle, Block: tfschema.Block{Attributes: map[string]*tfschema.Attribute{"create": {Type: cty.String, Optional: true}}}},
			"meta":     {Nesting: tfschema.NestingGroup, Block: group},
			"dyn":      {Nesting: tfschema.NestingList, Block: tfschema.Block{Attributes: map[string]*tfschema.Attribute{"d": {Type: cty.DynamicPseudoType, Optional: true}}}},
		},
	}
	b.Finish()
	return b
}

// TestEncodeConfigIsConfig: for configurations it writes directly and
// for those it leaves to tfschema.Config, EncodeConfig's bytes and
// diagnostics are Config's value's and Config's.
func TestEncodeConfigIsConfig(t *testing.T) {
	b := configBlock()
	direct := []map[string]any{
		nil,
		{},
		{"name": "web", "size": 3.0, "on": true, "triggers": map[string]any{"b": "2", "a": "1"}, "zones": []any{"x", "y"}},
		{"name": "e\u0301", "size": math.Copysign(0, -1), "on": false, "triggers": map[string]any{}, "zones": []any{}, "set": []any{}},
		{"size": 0.1}, {"size": 1e300}, {"size": math.Inf(-1)}, {"size": float64(1 << 53)}, {"size": float64(1<<53 + 2)}, {"size": -12.5},
		{"triggers": map[string]any{"k0": "v", "k1": "v", "k2": "v", "k3": "v", "k4": "v", "k5": "v", "k6": "v", "k7": "v", "k8": "v",
			"k9": "v", "k10": "v", "k11": "v", "k12": "v", "k13": "v", "k14": "v", "k15": "v", "k16": "v", "k17": "v"}},
	}
	for _, props := range direct {
		if got := checkEncodeConfig(t, b, props); got.Value != cty.NilVal {
			t.Errorf("EncodeConfig(%#v) built the cty value", props)
		}
	}
	viaConfig := []map[string]any{
		{"name": "a" + value.Unknown}, {"triggers": map[string]any{"a": value.Unknown}}, {"name": value.Unknown},
		{"name": 300.0}, {"size": "300"}, {"size": "x"}, {"on": "true"}, {"size": math.NaN()},
		{"set": []any{"b", "a", "b"}}, {"triggers": map[string]any{"é": "x"}}, {"triggers": map[string]any{"a": nil}},
		{"zones": []any{"a", 1.0}}, {"extra": []any{1.0, "x"}}, {"id": "i-1"}, {"old": "x"}, {"nested": map[string]any{"host": "h"}},
		{"rule": []any{map[string]any{"port": 80.0}}}, {"timeouts": map[string]any{"create": "1m"}}, {"meta": map[string]any{"note": "n"}},
		{"rule": map[string]any{"port": 80.0}}, {"members": []any{}}, {"nope": 1.0}, {"triggers": "x"}, {"zones": "x"},
	}
	for _, props := range viaConfig {
		checkEncodeConfig(t, b, props)
	}

	required := configBlock()
	required.Attributes["need"].Optional, required.Attributes["need"].Required = false, true
	required.BlockTypes["rule"].MinItems = 1
	required.Finish()
	checkEncodeConfig(t, required, map[string]any{})
	checkEncodeConfig(t, required, map[string]any{"need": "x"})
}

// TestEncodeConfigRandom: random configurations of the block, plain and
// otherwise, encode as tfschema.Config's value does (a seeded fuzz).
func TestEncodeConfigRandom(t *testing.T) {
	b := configBlock()
	r := rand.New(rand.NewPCG(39, 2))
	leaf := func() any {
		switch r.IntN(10) {
		case 0:
			return nil
		case 1:
			return value.Unknown
		case 2:
			return float64(r.IntN(2000) - 1000)
		case 3:
			return r.Float64() * 1e6
		case 4:
			return r.IntN(2) == 0
		case 5:
			return "ü" + fmt.Sprint(r.IntN(3))
		}
		return fmt.Sprintf("s%d", r.IntN(5))
	}
	val := func() any {
		switch r.IntN(4) {
		case 0:
			m := map[string]any{}
			for range r.IntN(5) {
				m[fmt.Sprintf("k%d", r.IntN(6))] = leaf()
			}
			return m
		case 1:
			l := make([]any, r.IntN(4))
			for i := range l {
				l[i] = leaf()
			}
			return l
		}
		return leaf()
	}
	names := []string{"name", "size", "on", "triggers", "zones", "set", "extra", "id", "old", "need", "rule", "timeouts", "unknown"}
	for range 3000 {
		props := map[string]any{}
		for range r.IntN(6) {
			props[names[r.IntN(len(names))]] = val()
		}
		checkEncodeConfig(t, b, props)
	}
}

// checkDecodeValues asserts that DecodeValues gives what
// tfschema.FromCtyObject gives of UnmarshalMsgpack's value, or its error,
// and CheckValues that error.
func checkDecodeValues(t *testing.T, b []byte, ty cty.Type) {
	t.Helper()
	var want map[string]any
	v, wantErr := tfplugin.UnmarshalMsgpack(b, ty)
	if wantErr == nil {
		want = tfschema.FromCtyObject(v)
	}
	got, err := tfplugin.DecodeValues(b, ty)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("DecodeValues(% x, %#v): error %v, want %v", b, ty, err, wantErr)
	}
	if err := tfplugin.CheckValues(b, ty); fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("CheckValues(% x, %#v): %v, want %v", b, ty, err, wantErr)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("DecodeValues(% x, %#v) (-FromCty +got):\n%s", b, ty, diff)
	}
}

// TestDecodeValuesIsFromCty: a null_resource's answers and values of
// every kind decode as tfschema.FromCtyObject of their cty value.
func TestDecodeValuesIsFromCty(t *testing.T) {
	ty := cty.Object(map[string]cty.Type{"id": cty.String, "triggers": cty.Map(cty.String)})
	for _, v := range []cty.Value{
		cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("5577006791947779410"), "triggers": cty.MapVal(map[string]cty.Value{"a": cty.StringVal("1")})}),
		cty.ObjectVal(map[string]cty.Value{"id": cty.UnknownVal(cty.String), "triggers": cty.NullVal(cty.Map(cty.String))}),
		cty.ObjectVal(map[string]cty.Value{"id": cty.UnknownVal(cty.String).RefineNotNull(), "triggers": cty.MapValEmpty(cty.String)}),
		cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("e\u0301"), "triggers": cty.UnknownVal(cty.Map(cty.String))}),
		cty.NullVal(ty), cty.UnknownVal(ty),
	} {
		b, err := tfplugin.AppendMsgpack(nil, v, ty)
		if err != nil {
			t.Fatal(err)
		}
		checkDecodeValues(t, b, ty)
	}
	for _, b := range [][]byte{
		{}, {0x80}, {0x81, 0xa2, 'i', 'd', 0xc0}, {0x82, 0xa2, 'i', 'd', 0x01, 0xa8, 't', 'r', 'i', 'g', 'g', 'e', 'r', 's', 0x80},
		{0x82, 0xa2, 'i', 'd', 0xc0, 0xa2, 'i', 'd', 0xa1, 'x'}, {0x92}, {0xc1},
	} {
		checkDecodeValues(t, b, ty)
	}
	nums := cty.Object(map[string]cty.Type{"n": cty.Number, "l": cty.List(cty.Number), "s": cty.Set(cty.Bool)})
	for _, n := range []cty.Value{cty.NumberIntVal(0), cty.NumberIntVal(-33), cty.NumberIntVal(1 << 53), cty.NumberIntVal(1<<53 + 1),
		cty.NumberIntVal(-(1 << 53) - 1), cty.NumberUIntVal(math.MaxUint64), cty.NumberFloatVal(0.5), cty.MustParseNumberVal("1e400")} {
		v := cty.ObjectVal(map[string]cty.Value{"n": n, "l": cty.ListVal([]cty.Value{n, cty.NullVal(cty.Number)}), "s": cty.SetVal([]cty.Value{cty.True, cty.False})})
		b, err := tfplugin.AppendMsgpack(nil, v, nums)
		if err != nil {
			t.Fatal(err)
		}
		checkDecodeValues(t, b, nums)
	}
}

// FuzzDecodeValuesLikeFromCty: for a random object type and value of it
// (from the seed), and for arbitrary bytes, DecodeValues gives what
// FromCtyObject gives of UnmarshalMsgpack's value, or its error.
func FuzzDecodeValuesLikeFromCty(f *testing.F) {
	for seed := range uint64(300) {
		f.Add(seed, []byte(nil))
	}
	f.Add(uint64(0), []byte{0x82, 0xa2, 'i', 'd', 0xd4, 0, 0, 0xa8, 't', 'r', 'i', 'g', 'g', 'e', 'r', 's', 0x81, 0xa1, 'a', 0xa1, 'b'})
	f.Fuzz(func(t *testing.T, seed uint64, raw []byte) {
		g := valueGen{r: rand.New(rand.NewPCG(seed, seed>>32)), budget: 20_000}
		ty := g.typ(3)
		if !ty.IsObjectType() {
			ty = cty.Object(map[string]cty.Type{"id": cty.String, "triggers": cty.Map(cty.String), "v": ty})
		}
		if raw != nil {
			checkDecodeValues(t, raw, ty)
			return
		}
		b, err := tfplugin.AppendMsgpack(nil, g.value(ty, 3), ty)
		if err != nil {
			t.Fatal(err)
		}
		checkDecodeValues(t, b, ty)
	})
}
