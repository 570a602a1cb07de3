package tfplugin_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"

	"github.com/kyku/action/internal/tfplugin"
)

// checkLikeCty asserts that AppendMsgpack writes exactly ctymsgpack.Marshal's
// bytes (or fails as it does), after what the buffer held, and that
// UnmarshalMsgpack of them gives what ctymsgpack.Unmarshal gives.
func checkLikeCty(t *testing.T, v cty.Value, ty cty.Type) {
	t.Helper()
	want, wantErr := ctymsgpack.Marshal(v, ty)
	prefix := []byte("prefix")
	got, err := tfplugin.AppendMsgpack(bytes.Clone(prefix), v, ty)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("encode %#v as %#v: error %v, cty's %v", v, ty, err, wantErr)
	}
	if wantErr != nil {
		return
	}
	if !bytes.HasPrefix(got, prefix) || !bytes.Equal(got[len(prefix):], want) {
		t.Fatalf("encode %#v as %#v:\n got % x\nwant % x", v, ty, got[len(prefix):], want)
	}
	checkDecodeLikeCty(t, want, ty)
}

func checkDecodeLikeCty(t *testing.T, b []byte, ty cty.Type) {
	t.Helper()
	var want cty.Value
	var wantErr error
	var wantPanic any
	func() {
		defer func() { wantPanic = recover() }()
		want, wantErr = ctymsgpack.Unmarshal(b, ty)
	}()
	got, err := tfplugin.UnmarshalMsgpack(b, ty)
	if wantPanic != nil {
		// cty panics here (on collections of dynamic values of different
		// types); Kyku's decoder refuses the input.
		if err == nil {
			t.Fatalf("decode % x as %#v: no error where cty panics (%v)", b, ty, wantPanic)
		}
		return
	}
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("decode % x as %#v: error %v, cty's %v", b, ty, err, wantErr)
	}
	if wantErr == nil && !got.RawEquals(want) {
		t.Fatalf("decode % x as %#v:\n got %#v\nwant %#v", b, ty, got, want)
	}
}

func TestMsgpackLikeCty(t *testing.T) {
	big1, _ := new(big.Float).SetPrec(512).SetString("123456789012345678901234567890.5")
	obj := cty.Object(map[string]cty.Type{"b": cty.String, "a": cty.Number, "list": cty.List(cty.Bool)})
	tests := []struct {
		name string
		v    cty.Value
		ty   cty.Type
	}{
		{"empty string", cty.StringVal(""), cty.String},
		{"fixstr", cty.StringVal(strings.Repeat("x", 31)), cty.String},
		{"str8", cty.StringVal(strings.Repeat("x", 32)), cty.String},
		{"str8 max", cty.StringVal(strings.Repeat("x", 255)), cty.String},
		{"str16", cty.StringVal(strings.Repeat("é", 200)), cty.String},
		{"str32", cty.StringVal(strings.Repeat("x", 70000)), cty.String},
		{"true", cty.True, cty.Bool},
		{"false", cty.False, cty.Bool},
		{"null string", cty.NullVal(cty.String), cty.String},
		{"zero", cty.Zero, cty.Number},
		{"fixint", cty.NumberIntVal(127), cty.Number},
		{"uint8", cty.NumberIntVal(200), cty.Number},
		{"uint16", cty.NumberIntVal(60000), cty.Number},
		{"uint32", cty.NumberIntVal(4000000000), cty.Number},
		{"uint64", cty.NumberIntVal(math.MaxInt64), cty.Number},
		{"negative fixint", cty.NumberIntVal(-32), cty.Number},
		{"int8", cty.NumberIntVal(-33), cty.Number},
		{"int16", cty.NumberIntVal(-200), cty.Number},
		{"int32", cty.NumberIntVal(-70000), cty.Number},
		{"int64", cty.NumberIntVal(math.MinInt64), cty.Number},
		{"uint beyond int64", cty.NumberUIntVal(math.MaxUint64), cty.Number},
		{"float", cty.NumberFloatVal(1.5), cty.Number},
		{"inexact decimal", cty.MustParseNumberVal("0.1"), cty.Number},
		{"big", cty.NumberVal(big1), cty.Number},
		{"+inf", cty.PositiveInfinity, cty.Number},
		{"-inf", cty.NegativeInfinity, cty.Number},
		{"list", cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}), cty.List(cty.String)},
		{"empty list", cty.ListValEmpty(cty.String), cty.List(cty.String)},
		{"list16", cty.ListVal(manyStrings(20)), cty.List(cty.String)},
		{"set", cty.SetVal([]cty.Value{cty.StringVal("z"), cty.StringVal("a"), cty.UnknownVal(cty.String)}), cty.Set(cty.String)},
		{"map", cty.MapVal(map[string]cty.Value{"z": cty.True, "a": cty.False}), cty.Map(cty.Bool)},
		{"map16", cty.MapVal(manyAttrs(17)), cty.Map(cty.String)},
		{"tuple", cty.TupleVal([]cty.Value{cty.True, cty.StringVal("x")}), cty.Tuple([]cty.Type{cty.Bool, cty.String})},
		{"object", cty.ObjectVal(map[string]cty.Value{"b": cty.StringVal("x"), "a": cty.Zero,
			"list": cty.NullVal(cty.List(cty.Bool))}), obj},
		{"object16", cty.ObjectVal(manyAttrs(40)), cty.ObjectVal(manyAttrs(40)).Type()},
		{"null object", cty.NullVal(obj), obj},
		{"unknown", cty.UnknownVal(cty.String), cty.String},
		{"unknown not null", cty.UnknownVal(cty.String).RefineNotNull(), cty.String},
		{"unknown prefix", cty.UnknownVal(cty.String).Refine().StringPrefix("ab").NewValue(), cty.String},
		{"unknown long prefix", cty.UnknownVal(cty.String).Refine().StringPrefix(strings.Repeat("é", 300)).NewValue(), cty.String},
		{"unknown number range", cty.UnknownVal(cty.Number).Refine().NotNull().
			NumberRangeLowerBound(cty.NumberIntVal(-1000), true).NumberRangeUpperBound(cty.NumberFloatVal(2.5), false).NewValue(), cty.Number},
		{"unknown length", cty.UnknownVal(cty.List(cty.String)).Refine().CollectionLengthLowerBound(1).
			CollectionLengthUpperBound(300).NewValue(), cty.List(cty.String)},
		{"unknown object not null", cty.UnknownVal(obj).RefineNotNull(), obj},
		{"dynamic unknown", cty.DynamicVal, cty.DynamicPseudoType},
		{"dynamic null", cty.NullVal(cty.DynamicPseudoType), cty.DynamicPseudoType},
		{"dynamic string", cty.StringVal("x"), cty.DynamicPseudoType},
		{"dynamic null string", cty.NullVal(cty.String), cty.DynamicPseudoType},
		{"dynamic unknown refined", cty.UnknownVal(cty.String).RefineNotNull(), cty.DynamicPseudoType},
		{"dynamic object", cty.ObjectVal(map[string]cty.Value{"x": cty.ListVal([]cty.Value{cty.Zero})}), cty.DynamicPseudoType},
		{"list of dynamic", cty.ListVal([]cty.Value{cty.StringVal("x"), cty.NullVal(cty.String)}), cty.List(cty.DynamicPseudoType)},
		{"converted", cty.StringVal("12"), cty.Number},
		{"not convertible", cty.StringVal("x"), cty.Number},
		{"marked", cty.StringVal("secret").Mark("sensitive"), cty.String},
		{"marked inside", cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("s").Mark("sensitive")}),
			cty.Object(map[string]cty.Type{"a": cty.String})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkLikeCty(t, tt.v, tt.ty) })
	}
}

// TestMsgpackRefinementLengths: unknown strings with prefixes of every
// length up to past the limit, so the extension header takes each of its
// forms (fixext 4, 8, 16, ext8, ext16).
func TestMsgpackRefinementLengths(t *testing.T) {
	for n := 1; n <= 300; n++ {
		for _, notNull := range []bool{false, true} {
			b := cty.UnknownVal(cty.String).Refine().StringPrefix(strings.Repeat("p", n))
			if notNull {
				b = b.NotNull()
			}
			checkLikeCty(t, b.NewValue(), cty.String)
		}
	}
}

// TestMsgpackLongCollections: lists and maps past 65535 items take the
// 32-bit length forms.
func TestMsgpackLongCollections(t *testing.T) {
	vals := make([]cty.Value, 70000)
	m := make(map[string]cty.Value, len(vals))
	for i := range vals {
		vals[i] = cty.BoolVal(i%2 == 0)
		m[fmt.Sprint(i)] = vals[i]
	}
	checkLikeCty(t, cty.ListVal(vals), cty.List(cty.Bool))
	checkLikeCty(t, cty.MapVal(m), cty.Map(cty.Bool))
}

func manyStrings(n int) []cty.Value {
	vals := make([]cty.Value, n)
	for i := range vals {
		vals[i] = cty.StringVal(fmt.Sprint("v", i))
	}
	return vals
}

func manyAttrs(n int) map[string]cty.Value {
	m := make(map[string]cty.Value, n)
	for i := range n {
		m[fmt.Sprint("attr", i)] = cty.StringVal(fmt.Sprint(i))
	}
	return m
}

// TestUnmarshalMsgpackLikeCty: input cty encodes otherwise, or not at
// all, decodes (or is refused) as cty/msgpack does.
func TestUnmarshalMsgpackLikeCty(t *testing.T) {
	obj := cty.Object(map[string]cty.Type{"a": cty.String, "b": cty.Number})
	tests := []struct {
		name string
		b    []byte
		ty   cty.Type
	}{
		{"empty input", nil, cty.String},
		{"bin as string", []byte{0xc4, 1, 'x'}, cty.String},
		{"truncated string", []byte{0xa3, 'x'}, cty.String},
		{"trailing bytes", []byte{0xa1, 'x', 0xff}, cty.String},
		{"int as string", []byte{0x01}, cty.String},
		{"float32", []byte{0xca, 0x3f, 0xc0, 0, 0}, cty.Number},
		{"number as string", []byte{0xa3, '1', '.', '5'}, cty.Number},
		{"bad number string", []byte{0xa1, 'x'}, cty.Number},
		{"int8 -1", []byte{0xd0, 0xff}, cty.Number},
		{"uint64 beyond int64", []byte{0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}, cty.Number},
		{"uint16", []byte{0xcd, 0x12, 0x34}, cty.Number},
		{"int32", []byte{0xd2, 0x80, 0, 0, 0}, cty.Number},
		{"int64 positive", []byte{0xd3, 0, 0, 0, 0, 0, 0, 0, 5}, cty.Number},
		{"bool from int", []byte{0x01}, cty.Bool},
		{"object wrong size", []byte{0x81, 0xa1, 'a', 0xa0}, obj},
		{"object unknown attribute", []byte{0x82, 0xa1, 'a', 0xa0, 0xa1, 'c', 0x01}, obj},
		{"object duplicate attribute", []byte{0x82, 0xa1, 'a', 0xa0, 0xa1, 'a', 0xa0}, obj},
		{"object empty", []byte{0x80}, obj},
		{"object int key", []byte{0x82, 0x01, 0xa0, 0xa1, 'b', 0x01}, obj},
		{"tuple wrong length", []byte{0x91, 0xc3}, cty.Tuple([]cty.Type{cty.Bool, cty.Bool})},
		{"tuple empty", []byte{0x90}, cty.Tuple([]cty.Type{cty.Bool})},
		{"map keys equal once normalized", []byte{0x82, 0xa2, 0xc3, 0xa9, 0xc3, 0xa3, 'e', 0xcc, 0x81, 0xc2}, cty.Map(cty.Bool)},
		{"map duplicate key", []byte{0x82, 0xa1, 'a', 0xc3, 0xa1, 'a', 0xc2}, cty.Map(cty.Bool)},
		{"unknown ext8", []byte{0xc7, 0, 0}, cty.String},
		{"unknown other type", []byte{0xd5, 5, 0, 0}, cty.String},
		{"unknown oversize", append([]byte{0xc8, 0x04, 0x01, 0x0c}, make([]byte, 1025)...), cty.String},
		{"prefix on a number", []byte{0xd6, 0x0c, 0x81, 0x02, 0xa1, 'x'}, cty.Number},
		{"refinement truncated", []byte{0xd6, 0x0c, 0x81}, cty.String},
		{"dynamic one element", []byte{0x91, 0xc3}, cty.DynamicPseudoType},
		{"dynamic bad type", []byte{0x92, 0xc4, 1, '!', 0xc3}, cty.DynamicPseudoType},
		{"dynamic type as str", []byte{0x92, 0xa6, '"', 'b', 'o', 'o', 'l', '"', 0xc3}, cty.DynamicPseudoType},
		{"list of dynamic mixed", []byte{0x92, 0x92, 0xc4, 6, '"', 'b', 'o', 'o', 'l', '"', 0xc3, 0x92, 0xc4, 8,
			'"', 's', 't', 'r', 'i', 'n', 'g', '"', 0xa0}, cty.Set(cty.DynamicPseudoType)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkDecodeLikeCty(t, tt.b, tt.ty)
		})
	}
}

// TestUnmarshalMsgpackTooLong: an array or map longer than the input is
// refused before anything is allocated for it (cty/msgpack allocates
// first and runs out of memory).
func TestUnmarshalMsgpackTooLong(t *testing.T) {
	for _, b := range [][]byte{{0xdd, 0xff, 0xff, 0xff, 0xff}, {0xdf, 0xff, 0xff, 0xff, 0xff}, {0xdc, 0, 3, 0xc3, 0xc3}} {
		ty := cty.List(cty.Bool)
		if b[0] == 0xdf {
			ty = cty.Map(cty.Bool)
		}
		if _, err := tfplugin.UnmarshalMsgpack(b, ty); !errors.Is(err, tfplugin.ErrMsgpackTooLong) {
			t.Errorf("decode % x: error %v, want %v", b, err, tfplugin.ErrMsgpackTooLong)
		}
	}
}

// TestUnmarshalMsgpackNaN: a NaN, which cty cannot hold (its decoder
// panics), is refused.
func TestUnmarshalMsgpackNaN(t *testing.T) {
	b := []byte{0x81, 0xa1, 'n', 0xcb, 0x7f, 0xf8, 0, 0, 0, 0, 0, 1}
	_, err := tfplugin.UnmarshalMsgpack(b, cty.Object(map[string]cty.Type{"n": cty.Number}))
	if err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Fatalf("decode a NaN: error %v, want one naming NaN", err)
	}
}

// FuzzMsgpackLikeCty: for a random type and value of it (from the seed),
// the codec's bytes are cty/msgpack's and decoding them gives cty's value.
func FuzzMsgpackLikeCty(f *testing.F) {
	for seed := range uint64(300) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		g := valueGen{r: rand.New(rand.NewPCG(seed, seed>>32)), budget: 200_000}
		ty := g.typ(3)
		v := g.value(ty, 3)
		checkLikeCty(t, v, ty)
	})
}

// FuzzUnmarshalMsgpackLikeCty: arbitrary bytes decode as cty/msgpack
// decodes them, for a few types.
func FuzzUnmarshalMsgpackLikeCty(f *testing.F) {
	for seed := range uint64(50) {
		g := valueGen{r: rand.New(rand.NewPCG(seed, 1)), budget: 2_000}
		v := g.value(fuzzTypes[seed%uint64(len(fuzzTypes))], 3)
		b, err := ctymsgpack.Marshal(v, fuzzTypes[seed%uint64(len(fuzzTypes))])
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(seed), b)
	}
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		ty := fuzzTypes[int(which)%len(fuzzTypes)]
		if _, err := tfplugin.UnmarshalMsgpack(b, ty); errors.Is(err, tfplugin.ErrMsgpackTooLong) {
			return // cty/msgpack would try to allocate it
		}
		checkDecodeLikeCty(t, b, ty)
	})
}

var fuzzTypes = []cty.Type{
	cty.Object(map[string]cty.Type{"id": cty.String, "triggers": cty.Map(cty.String)}),
	cty.DynamicPseudoType,
	cty.Tuple([]cty.Type{cty.Number, cty.Bool, cty.Set(cty.String)}),
	cty.List(cty.Object(map[string]cty.Type{"n": cty.Number, "d": cty.DynamicPseudoType})),
}

// valueGen makes random cty types and values of them, long strings and
// collections while its budget (bytes, roughly) lasts.
type valueGen struct {
	r      *rand.Rand
	budget int
}

func (g *valueGen) typ(depth int) cty.Type {
	n := 5
	if depth > 0 {
		n = 11
	}
	switch g.r.IntN(n) {
	case 0:
		return cty.String
	case 1:
		return cty.Number
	case 2:
		return cty.Bool
	case 3:
		return cty.DynamicPseudoType
	case 4:
		return cty.String
	case 5:
		return cty.List(g.typ(depth - 1))
	case 6:
		return cty.Set(g.typ(depth - 1))
	case 7:
		return cty.Map(g.typ(depth - 1))
	case 8:
		etys := make([]cty.Type, g.r.IntN(4))
		for i := range etys {
			etys[i] = g.typ(depth - 1)
		}
		return cty.Tuple(etys)
	default:
		atys := map[string]cty.Type{}
		for i := range g.r.IntN(20) {
			atys[g.name(i)] = g.typ(depth - 1)
		}
		return cty.Object(atys)
	}
}

func (g *valueGen) name(i int) string {
	return fmt.Sprintf("%s%d", []string{"a", "Z", "id", "é", "_x", ""}[g.r.IntN(6)], i)
}

func (g *valueGen) value(ty cty.Type, depth int) cty.Value {
	switch g.r.IntN(12) {
	case 0:
		return cty.NullVal(ty)
	case 1:
		return g.unknown(ty)
	}
	switch {
	case ty == cty.DynamicPseudoType:
		if depth <= 0 {
			return cty.StringVal(g.str())
		}
		return g.value(g.typ(depth-1), depth-1)
	case ty == cty.String:
		return cty.StringVal(g.str())
	case ty == cty.Bool:
		return cty.BoolVal(g.r.IntN(2) == 0)
	case ty == cty.Number:
		return g.number()
	case ty.IsListType(), ty.IsSetType():
		n := g.r.IntN(4)
		if g.r.IntN(8) == 0 && g.budget > 0 {
			n = 16 + g.r.IntN(3)
			g.budget -= 1000
		}
		if n == 0 {
			if ty.IsSetType() {
				return cty.SetValEmpty(ty.ElementType())
			}
			return cty.ListValEmpty(ty.ElementType())
		}
		vals := make([]cty.Value, n)
		ety := g.concrete(ty.ElementType()) // elements of one type
		for i := range vals {
			vals[i] = g.value(ety, depth-1)
		}
		if ty.IsSetType() {
			return cty.SetVal(vals)
		}
		return cty.ListVal(vals)
	case ty.IsMapType():
		n := g.r.IntN(4)
		if n == 0 {
			return cty.MapValEmpty(ty.ElementType())
		}
		ety := g.concrete(ty.ElementType())
		vals := map[string]cty.Value{}
		for i := range n {
			vals[g.name(i)] = g.value(ety, depth-1)
		}
		return cty.MapVal(vals)
	case ty.IsTupleType():
		etys := ty.TupleElementTypes()
		vals := make([]cty.Value, len(etys))
		for i, ety := range etys {
			vals[i] = g.value(ety, depth-1)
		}
		return cty.TupleVal(vals)
	default:
		vals := map[string]cty.Value{}
		for k, aty := range ty.AttributeTypes() {
			vals[k] = g.value(aty, depth-1)
		}
		return cty.ObjectVal(vals)
	}
}

// concrete is ty with a random type of no dynamic part in place of each
// cty.DynamicPseudoType in it.
func (g *valueGen) concrete(ty cty.Type) cty.Type {
	switch {
	case ty == cty.DynamicPseudoType:
		return []cty.Type{cty.String, cty.Number, cty.Bool, cty.List(cty.String)}[g.r.IntN(4)]
	case ty.IsListType():
		return cty.List(g.concrete(ty.ElementType()))
	case ty.IsSetType():
		return cty.Set(g.concrete(ty.ElementType()))
	case ty.IsMapType():
		return cty.Map(g.concrete(ty.ElementType()))
	case ty.IsTupleType():
		etys := make([]cty.Type, len(ty.TupleElementTypes()))
		for i, ety := range ty.TupleElementTypes() {
			etys[i] = g.concrete(ety)
		}
		return cty.Tuple(etys)
	case ty.IsObjectType():
		atys := map[string]cty.Type{}
		for k, aty := range ty.AttributeTypes() {
			atys[k] = g.concrete(aty)
		}
		return cty.Object(atys)
	}
	return ty
}

func (g *valueGen) str() string {
	n := []int{0, 1, 5, 31, 32, 255, 256, 70000}[g.r.IntN(8)]
	if g.r.IntN(3) > 0 || n > g.budget {
		n = g.r.IntN(8)
	}
	g.budget -= n
	return strings.Repeat(string([]rune{'a', 'é', '€', '😀'}[g.r.IntN(4)]), n)
}

func (g *valueGen) number() cty.Value {
	switch g.r.IntN(8) {
	case 0:
		return cty.NumberIntVal(g.r.Int64N(256) - 128)
	case 1:
		return cty.NumberIntVal(int64(g.r.Uint64()) >> g.r.IntN(64))
	case 2:
		return cty.NumberUIntVal(g.r.Uint64())
	case 3:
		return cty.NumberFloatVal(g.r.NormFloat64() * math.Pow(10, float64(g.r.IntN(40)-20)))
	case 4:
		return cty.MustParseNumberVal(fmt.Sprintf("%d.%d", g.r.IntN(1000), g.r.IntN(1000)))
	case 5:
		return cty.MustParseNumberVal(fmt.Sprintf("%d%d%d", g.r.Uint64(), g.r.Uint64(), g.r.IntN(10)))
	case 6:
		return []cty.Value{cty.PositiveInfinity, cty.NegativeInfinity, cty.Zero}[g.r.IntN(3)]
	}
	return cty.NumberIntVal(g.r.Int64())
}

// unknown is an unknown of ty, with refinements cty allows for it.
func (g *valueGen) unknown(ty cty.Type) cty.Value {
	if ty == cty.DynamicPseudoType || g.r.IntN(3) == 0 {
		return cty.UnknownVal(ty)
	}
	b := cty.UnknownVal(ty).Refine()
	if g.r.IntN(2) == 0 {
		b = b.NotNull()
	}
	switch {
	case ty == cty.String:
		if g.r.IntN(2) == 0 {
			b = b.StringPrefix(g.str())
		}
	case ty == cty.Number:
		lo := g.r.Int64N(1000) - 500
		if g.r.IntN(2) == 0 {
			b = b.NumberRangeLowerBound(cty.NumberIntVal(lo), g.r.IntN(2) == 0)
		}
		if g.r.IntN(2) == 0 {
			b = b.NumberRangeUpperBound(cty.NumberFloatVal(float64(lo)+0.5+float64(g.r.IntN(100))), g.r.IntN(2) == 0)
		}
	case ty.IsCollectionType():
		lo := g.r.IntN(3)
		if g.r.IntN(2) == 0 {
			b = b.CollectionLengthLowerBound(lo)
		}
		if g.r.IntN(2) == 0 {
			b = b.CollectionLengthUpperBound(lo + g.r.IntN(70000))
		}
	}
	return b.NewValue()
}

// benchValues are a null_resource's planned state and a big nested object.
func benchValues() map[string]cty.Value {
	nested := map[string]cty.Value{}
	for i := range 20 {
		nested[fmt.Sprint("attr", i)] = cty.ObjectVal(map[string]cty.Value{
			"name":  cty.StringVal(fmt.Sprint("name-", i)),
			"count": cty.NumberIntVal(int64(i * 1000)),
			"on":    cty.True,
			"tags":  cty.MapVal(map[string]cty.Value{"env": cty.StringVal("prod"), "team": cty.StringVal("infra")}),
			"ports": cty.ListVal([]cty.Value{cty.NumberIntVal(80), cty.NumberIntVal(443)}),
			"ids":   cty.SetVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b"), cty.UnknownVal(cty.String)}),
		})
	}
	return map[string]cty.Value{
		"null_resource": cty.ObjectVal(map[string]cty.Value{
			"id": cty.UnknownVal(cty.String),
			"triggers": cty.MapVal(map[string]cty.Value{
				"chain": cty.StringVal("0"), "index": cty.StringVal("1"),
			}),
		}),
		"nested": cty.ObjectVal(nested),
	}
}

// BenchmarkMsgpack compares the codec with cty/msgpack's, encoding and
// decoding.
func BenchmarkMsgpack(b *testing.B) {
	for name, v := range benchValues() {
		ty := v.Type()
		enc, _ := ctymsgpack.Marshal(v, ty)
		b.Run(name+"/encode/cty", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ctymsgpack.Marshal(v, ty); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/encode/kyku", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tfplugin.AppendMsgpack(nil, v, ty); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/decode/cty", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ctymsgpack.Unmarshal(enc, ty); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/decode/kyku", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tfplugin.UnmarshalMsgpack(enc, ty); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
