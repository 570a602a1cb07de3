package tfplugin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math"
	"math/big"
	"slices"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/ctystrings"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
)

// This file is a msgpack codec for cty values that writes and reads
// exactly what github.com/zclconf/go-cty/cty/msgpack does (saved plans
// hold these bytes and apply sends them back byte for byte), without its
// reflection-driven encoder, bytes.Buffer and per-value decoder state.
// What it does not handle itself — marked values, values that need a
// type conversion, anything malformed — it leaves to cty/msgpack, so
// that errors read exactly as cty's.

// errSlowPath reports a value or input the fast codec leaves to cty/msgpack.
var errSlowPath = errors.New("tfplugin: left to cty/msgpack")

// errTooLong refuses an array or map said to hold more items than the
// bytes left (cty/msgpack would allocate room for them all first).
var errTooLong = errors.New("decode msgpack value: an array or map is longer than the input")

// errMixedTypes refuses a list, set or map of dynamic values of
// different types (cty's constructors panic).
var errMixedTypes = errors.New("decode msgpack value: a collection's elements have different types")

// errNaN refuses a float that is not a number, which cty cannot hold.
var errNaN = errors.New("decode msgpack value: a number is NaN")

// AppendMsgpack appends v, as type ty, in cty/msgpack's encoding to b:
// the same bytes as ctymsgpack.Marshal(v, ty), and the same errors.
func AppendMsgpack(b []byte, v cty.Value, ty cty.Type) ([]byte, error) {
	if v.Type().TestConformance(ty) == nil {
		out, err := appendValue(b, v, ty)
		if err == nil {
			return out, nil
		}
	}
	out, err := ctymsgpack.Marshal(v, ty)
	if err != nil {
		return b, err
	}
	return append(b, out...), nil
}

func appendValue(b []byte, v cty.Value, ty cty.Type) ([]byte, error) {
	if v.IsMarked() {
		return b, errSlowPath
	}
	if ty == cty.DynamicPseudoType && v.Type() != cty.DynamicPseudoType {
		js, err := v.Type().MarshalJSON()
		if err != nil {
			return b, errSlowPath
		}
		b = append(b, 0x92)
		b = appendBin(b, js)
		return appendValue(b, v, v.Type())
	}
	if !v.IsKnown() {
		return appendUnknown(b, v.Range())
	}
	if v.IsNull() {
		return append(b, 0xc0), nil
	}
	switch {
	case ty == cty.String:
		return appendStr(b, v.AsString()), nil
	case ty == cty.Number:
		return appendNumber(b, v), nil
	case ty == cty.Bool:
		// v.True() compares with cty.Equals; a known, unmarked bool is
		// cty.True or cty.False as a Go value.
		if v == cty.True {
			return append(b, 0xc3), nil
		}
		return append(b, 0xc2), nil
	case ty.IsListType(), ty.IsSetType(), ty.IsTupleType():
		var etys []cty.Type
		if ty.IsTupleType() {
			etys = ty.TupleElementTypes()
			b = appendArrayLen(b, len(etys))
		} else {
			b = appendArrayLen(b, v.LengthInt())
		}
		var err error
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, ev := it.Element()
			var ety cty.Type
			if etys != nil {
				ety = etys[i]
			} else {
				ety = ty.ElementType()
			}
			if b, err = appendValue(b, ev, ety); err != nil {
				return b, err
			}
		}
		return b, nil
	case ty.IsMapType():
		b = appendMapLen(b, v.LengthInt())
		ety := ty.ElementType()
		var err error
		for it := v.ElementIterator(); it.Next(); {
			ek, ev := it.Element()
			if ek.IsMarked() {
				return b, errSlowPath
			}
			b = appendStr(b, ek.AsString())
			if b, err = appendValue(b, ev, ety); err != nil {
				return b, err
			}
		}
		return b, nil
	case ty.IsObjectType():
		atys := ty.AttributeTypes()
		var arr [32]string
		names := arr[:0]
		for k := range atys {
			names = append(names, k)
		}
		slices.Sort(names)
		b = appendMapLen(b, len(names))
		var err error
		for _, k := range names {
			b = appendStr(b, k)
			if b, err = appendValue(b, v.GetAttr(k), atys[k]); err != nil {
				return b, err
			}
		}
		return b, nil
	}
	return b, errSlowPath // capsules and anything else: cty's error
}

// appendNumber follows cty/msgpack: an integer that fits int64 as the
// smallest msgpack integer, a non-integer float64 represents exactly as
// a float64, anything else as its decimal string.
func appendNumber(b []byte, v cty.Value) []byte { return appendBigFloat(b, v.AsBigFloat()) }

func appendBigFloat(b []byte, bf *big.Float) []byte {
	if bf.IsInf() { // what v.RawEquals(cty.PositiveInfinity) tests, without its cost
		return appendFloat64(b, math.Inf(bf.Sign()))
	}
	if iv, acc := bf.Int64(); acc == big.Exact {
		return appendInt(b, iv)
	}
	if fv, acc := bf.Float64(); acc == big.Exact && !bf.IsInt() {
		return appendFloat64(b, fv)
	}
	return appendStr(b, bf.Text('f', -1))
}

// Refinement keys of cty/msgpack's unknown-value extension (type 0x0c).
const (
	refineNullness     = 1
	refineStringPrefix = 2
	refineNumberMin    = 3
	refineNumberMax    = 4
	refineLengthMin    = 5
	refineLengthMax    = 6
	maxPrefixLength    = 256
)

// appendUnknown writes an unknown value: cty's one-byte extension 0 when
// it has no refinements, else extension 0x0c holding a map of them.
func appendUnknown(b []byte, rng cty.ValueRange) ([]byte, error) {
	total := []byte{0xd4, 0, 0}
	tc := rng.TypeConstraint()
	if tc == cty.DynamicPseudoType {
		return append(b, total...), nil
	}
	var scratch [64]byte
	r := scratch[:0]
	n := 0
	if rng.DefinitelyNotNull() {
		n++
		r = append(r, refineNullness, 0xc2)
	}
	switch {
	case tc == cty.Number:
		lower, lowerInc := rng.NumberLowerBound()
		upper, upperInc := rng.NumberUpperBound()
		if lower.IsKnown() && lower != cty.NegativeInfinity {
			n++
			r = appendBound(append(r, refineNumberMin), lower, lowerInc)
		}
		if upper.IsKnown() && upper != cty.PositiveInfinity {
			n++
			r = appendBound(append(r, refineNumberMax), upper, upperInc)
		}
	case tc == cty.String:
		if prefix := rng.StringPrefix(); prefix != "" {
			if len(prefix) > maxPrefixLength {
				prefix = ctystrings.SafeKnownPrefix(prefix[:maxPrefixLength-1])
			}
			n++
			r = appendStr(append(r, refineStringPrefix), prefix)
		}
	case tc.IsCollectionType():
		if lower := rng.LengthLowerBound(); lower != 0 {
			n++
			r = appendInt(append(r, refineLengthMin), int64(lower))
		}
		if upper := rng.LengthUpperBound(); upper != math.MaxInt {
			n++
			r = appendInt(append(r, refineLengthMax), int64(upper))
		}
	}
	if n == 0 {
		return append(b, total...), nil
	}
	b = appendExtHeader(b, 0x0c, 1+len(r))
	b = append(b, 0x80|byte(n))
	return append(b, r...), nil
}

// appendBound writes a number bound as cty does: the tuple [bound, inclusive].
func appendBound(b []byte, bound cty.Value, inclusive bool) []byte {
	b = append(b, 0x92)
	if bound.IsNull() {
		b = append(b, 0xc0)
	} else {
		b = appendNumber(b, bound)
	}
	if inclusive {
		return append(b, 0xc3)
	}
	return append(b, 0xc2)
}

func appendExtHeader(b []byte, typ byte, n int) []byte {
	switch n {
	case 1:
		b = append(b, 0xd4)
	case 2:
		b = append(b, 0xd5)
	case 4:
		b = append(b, 0xd6)
	case 8:
		b = append(b, 0xd7)
	case 16:
		b = append(b, 0xd8)
	default:
		switch {
		case n <= math.MaxUint8:
			b = append(b, 0xc7, byte(n))
		case n <= math.MaxUint16:
			b = binary.BigEndian.AppendUint16(append(b, 0xc8), uint16(n))
		default:
			b = binary.BigEndian.AppendUint32(append(b, 0xc9), uint32(n))
		}
	}
	return append(b, typ)
}

// appendInt writes n as vmihailenco/msgpack's EncodeInt does: the
// shortest form, unsigned forms for non-negative numbers.
func appendInt(b []byte, n int64) []byte {
	if n >= 0 {
		u := uint64(n)
		switch {
		case u <= math.MaxInt8:
			return append(b, byte(u))
		case u <= math.MaxUint8:
			return append(b, 0xcc, byte(u))
		case u <= math.MaxUint16:
			return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(u))
		case u <= math.MaxUint32:
			return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(u))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xcf), u)
	}
	switch {
	case n >= -32:
		return append(b, byte(n))
	case n >= math.MinInt8:
		return append(b, 0xd0, byte(n))
	case n >= math.MinInt16:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(n))
	case n >= math.MinInt32:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

func appendFloat64(b []byte, f float64) []byte {
	return binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(f))
}

func appendStr(b []byte, s string) []byte {
	switch n := len(s); {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= math.MaxUint8:
		b = append(b, 0xd9, byte(n))
	default:
		b = appendWide(b, n, 0xda, 0xdb)
	}
	return append(b, s...)
}

func appendBin(b []byte, p []byte) []byte {
	if n := len(p); n <= math.MaxUint8 {
		b = append(b, 0xc4, byte(n))
	} else {
		b = appendWide(b, n, 0xc5, 0xc6)
	}
	return append(b, p...)
}

func appendArrayLen(b []byte, n int) []byte { return appendCount(b, n, 0x90, 0xdc, 0xdd) }

func appendMapLen(b []byte, n int) []byte { return appendCount(b, n, 0x80, 0xde, 0xdf) }

// appendCount appends an array's or a map's item count n: in the fix form
// (fix's high nibble) below 16, else in 16 or 32 bits (c16, c32); the
// reader's count reads it.
func appendCount(b []byte, n int, fix, c16, c32 byte) []byte {
	if n < 16 {
		return append(b, fix|byte(n))
	}
	return appendWide(b, n, c16, c32)
}

// appendWide appends a length or count n past its short forms: in 16
// bits after the code c16, or else in 32 after c32 (str, bin, array and
// map alike).
func appendWide(b []byte, n int, c16, c32 byte) []byte {
	if n <= math.MaxUint16 {
		return binary.BigEndian.AppendUint16(append(b, c16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, c32), uint32(n))
}

// UnmarshalMsgpack decodes b, cty/msgpack's encoding of a value of type
// ty: the value ctymsgpack.Unmarshal(b, ty) gives, and its errors (any
// input the fast decoder does not accept as well-formed is decoded by
// cty/msgpack), except that it refuses what cty/msgpack panics on or
// would run out of memory for. Like cty's, it ignores bytes after the value.
func UnmarshalMsgpack(b []byte, ty cty.Type) (_ cty.Value, err error) {
	// cty's constructors panic on some input no decoder check foresees
	// (map keys equal once NFC-normalized, say): a provider's malformed
	// answer must not crash Kyku.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("decode msgpack value: %v", p)
		}
	}()
	d := mpReader{b: b}
	v, err := d.value(ty)
	switch {
	case err == nil:
		return v, nil
	case err != errSlowPath:
		return cty.NilVal, err // input cty/msgpack would panic or run out of memory on
	}
	return ctymsgpack.Unmarshal(b, ty)
}

// mpReader reads one value; any error is errSlowPath.
type mpReader struct {
	b   []byte
	pos int
	// discard: canonical checks the input only, building no value
	// (CheckValues)
	discard bool
	// text is b as a string, made at canonical's first string: its
	// strings are parts of it (one copy of the input, not one a string)
	text string
}

// substr is p, a part of d.b just read, as a part of d.text.
func (d *mpReader) substr(p []byte) string {
	if d.text == "" {
		d.text = string(d.b)
	}
	return d.text[d.pos-len(p) : d.pos]
}

func (d *mpReader) peek() (byte, error) {
	if d.pos >= len(d.b) {
		return 0, errSlowPath
	}
	return d.b[d.pos], nil
}

// next is the next n bytes.
func (d *mpReader) next(n int) ([]byte, error) {
	if n < 0 || n > len(d.b)-d.pos {
		return nil, errSlowPath
	}
	p := d.b[d.pos : d.pos+n]
	d.pos += n
	return p, nil
}

// uint reads a big-endian unsigned integer of n (1, 2, 4 or 8) bytes.
func (d *mpReader) uint(n int) (uint64, error) {
	p, err := d.next(n)
	if err != nil {
		return 0, err
	}
	switch n {
	case 1:
		return uint64(p[0]), nil
	case 2:
		return uint64(binary.BigEndian.Uint16(p)), nil
	case 4:
		return uint64(binary.BigEndian.Uint32(p)), nil
	}
	return binary.BigEndian.Uint64(p), nil
}

// length reads the length after a code whose length follows in n bytes,
// refusing lengths longer than what is left (each item is a byte at least).
func (d *mpReader) length(n int) (int, error) {
	u, err := d.uint(n)
	if err != nil || u > uint64(len(d.b)-d.pos) {
		return 0, errSlowPath
	}
	return int(u), nil
}

func isExt(c byte) bool { return c >= 0xd4 && c <= 0xd8 || c >= 0xc7 && c <= 0xc9 }

func (d *mpReader) value(ty cty.Type) (cty.Value, error) {
	c, err := d.peek()
	if err != nil {
		return cty.NilVal, err
	}
	if isExt(c) {
		return d.unknown(ty)
	}
	if ty == cty.DynamicPseudoType {
		return d.dynamic()
	}
	if c == 0xc0 {
		d.pos++
		return cty.NullVal(ty), nil
	}
	switch {
	case ty == cty.String:
		s, err := d.str()
		if err != nil {
			return cty.NilVal, err
		}
		return cty.StringVal(s), nil
	case ty == cty.Number:
		return d.number()
	case ty == cty.Bool:
		d.pos++
		switch c {
		case 0xc3:
			return cty.True, nil
		case 0xc2:
			return cty.False, nil
		}
		return cty.NilVal, errSlowPath
	case ty.IsListType(), ty.IsSetType():
		n, err := d.arrayLen()
		if err != nil {
			return cty.NilVal, err
		}
		ety := ty.ElementType()
		if n == 0 {
			if ty.IsSetType() {
				return cty.SetValEmpty(ety), nil
			}
			return cty.ListValEmpty(ety), nil
		}
		vals := make([]cty.Value, n)
		for i := range vals {
			if vals[i], err = d.value(ety); err != nil {
				return cty.NilVal, err
			}
		}
		if !consistent(slices.Values(vals)) {
			return cty.NilVal, errMixedTypes
		}
		if ty.IsSetType() {
			return cty.SetVal(vals), nil
		}
		return cty.ListVal(vals), nil
	case ty.IsTupleType():
		n, err := d.arrayLen()
		if err != nil {
			return cty.NilVal, err
		}
		etys := ty.TupleElementTypes()
		if n == 0 {
			return cty.EmptyTupleVal, nil
		}
		if n != len(etys) {
			return cty.NilVal, errSlowPath
		}
		vals := make([]cty.Value, n)
		for i := range vals {
			if vals[i], err = d.value(etys[i]); err != nil {
				return cty.NilVal, err
			}
		}
		return cty.TupleVal(vals), nil
	case ty.IsMapType():
		n, err := d.mapLen()
		if err != nil {
			return cty.NilVal, err
		}
		ety := ty.ElementType()
		if n == 0 {
			return cty.MapValEmpty(ety), nil
		}
		vals := make(map[string]cty.Value, n)
		for range n {
			k, err := d.str()
			if err != nil {
				return cty.NilVal, err
			}
			if vals[k], err = d.value(ety); err != nil {
				return cty.NilVal, err
			}
		}
		if !consistent(maps.Values(vals)) {
			return cty.NilVal, errMixedTypes
		}
		return cty.MapVal(vals), nil
	case ty.IsObjectType():
		n, err := d.mapLen()
		if err != nil {
			return cty.NilVal, err
		}
		if n == 0 {
			return cty.EmptyObjectVal, nil
		}
		atys := ty.AttributeTypes()
		if n != len(atys) {
			return cty.NilVal, errSlowPath
		}
		vals := make(map[string]cty.Value, n)
		for range n {
			k, err := d.str()
			if err != nil {
				return cty.NilVal, err
			}
			aty, ok := atys[k]
			if !ok {
				return cty.NilVal, errSlowPath
			}
			if vals[k], err = d.value(aty); err != nil {
				return cty.NilVal, err
			}
		}
		return cty.ObjectVal(vals), nil
	}
	return cty.NilVal, errSlowPath
}

// consistent reports whether cty.ListVal, cty.SetVal and cty.MapVal
// accept vals (cty/msgpack panics on a collection of values of different
// types, which one of dynamic values in malformed input can be).
func consistent(vals iter.Seq[cty.Value]) bool {
	ety := cty.DynamicPseudoType
	for v := range vals {
		if ety == cty.DynamicPseudoType {
			ety = v.Type()
		} else if v.Type() != cty.DynamicPseudoType && !ety.Equals(v.Type()) {
			return false
		}
	}
	return true
}

// str reads a msgpack str (cty's decoder also takes bin and nil: left to it).
func (d *mpReader) str() (string, error) {
	p, err := d.rawStr()
	return string(p), err
}

// rawStr is str's bytes, in the input.
func (d *mpReader) rawStr() ([]byte, error) {
	c, err := d.peek()
	if err != nil {
		return nil, err
	}
	d.pos++
	var n int
	switch {
	case c&0xe0 == 0xa0:
		n = int(c & 0x1f)
	case c == 0xd9:
		n, err = d.length(1)
	case c == 0xda:
		n, err = d.length(2)
	case c == 0xdb:
		n, err = d.length(4)
	default:
		return nil, errSlowPath
	}
	if err != nil {
		return nil, err
	}
	return d.next(n)
}

func (d *mpReader) arrayLen() (int, error) { return d.count(0x90, 0xdc, 0xdd) }

func (d *mpReader) mapLen() (int, error) { return d.count(0x80, 0xde, 0xdf) }

// count reads an array's or a map's item count: a fix form (fix in the
// high nibble), or a 16- or 32-bit one (c16, c32).
func (d *mpReader) count(fix, c16, c32 byte) (int, error) {
	c := d.b[d.pos]
	d.pos++
	switch {
	case c&0xf0 == fix:
		return int(c & 0x0f), nil
	case c == c16:
		return d.items(2)
	case c == c32:
		return d.items(4)
	}
	return 0, errSlowPath
}

// items reads the item count of an array or map, in n bytes: an item
// takes a byte at least, so a count beyond the bytes left is refused.
func (d *mpReader) items(n int) (int, error) {
	u, err := d.uint(n)
	switch {
	case err != nil:
		return 0, err
	case u > uint64(len(d.b)-d.pos):
		return 0, errTooLong
	}
	return int(u), nil
}

// number reads a number as cty/msgpack does: any msgpack integer or
// float, or a decimal string.
func (d *mpReader) number() (cty.Value, error) {
	c := d.b[d.pos]
	switch {
	case c <= 0x7f:
		d.pos++
		return cty.NumberIntVal(int64(c)), nil
	case c >= 0xe0:
		d.pos++
		return cty.NumberIntVal(int64(int8(c))), nil
	case c >= 0xcc && c <= 0xcf: // uint 8, 16, 32, 64
		d.pos++
		u, err := d.uint(1 << (c - 0xcc))
		if err != nil {
			return cty.NilVal, err
		}
		return cty.NumberUIntVal(u), nil
	case c >= 0xd0 && c <= 0xd3: // int 8, 16, 32, 64
		d.pos++
		n := 1 << (c - 0xd0)
		u, err := d.uint(n)
		if err != nil {
			return cty.NilVal, err
		}
		shift := 64 - 8*n
		return cty.NumberIntVal(int64(u<<shift) >> shift), nil
	case c == 0xca, c == 0xcb:
		d.pos++
		var f float64
		if c == 0xca {
			u, err := d.uint(4)
			if err != nil {
				return cty.NilVal, err
			}
			f = float64(math.Float32frombits(uint32(u)))
		} else {
			u, err := d.uint(8)
			if err != nil {
				return cty.NilVal, err
			}
			f = math.Float64frombits(u)
		}
		if math.IsNaN(f) {
			return cty.NilVal, errNaN
		}
		return cty.NumberFloatVal(f), nil
	}
	s, err := d.str()
	if err != nil {
		return cty.NilVal, err
	}
	v, err := cty.ParseNumberVal(s)
	if err != nil {
		return cty.NilVal, errSlowPath
	}
	return v, nil
}

// unknown reads an unknown value: an extension of at most one byte is
// wholly unknown; a longer one, which carries refinements, is decoded by
// cty/msgpack alone (it is small and rare).
func (d *mpReader) unknown(ty cty.Type) (cty.Value, error) {
	start := d.pos
	c := d.b[d.pos]
	d.pos++
	var n int
	var err error
	switch c {
	case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8:
		n = 1 << (c - 0xd4)
	case 0xc7:
		n, err = d.length(1)
	case 0xc8:
		n, err = d.length(2)
	default:
		n, err = d.length(4)
	}
	if err != nil {
		return cty.NilVal, err
	}
	if _, err := d.next(1 + n); err != nil { // the type byte and the body
		return cty.NilVal, err
	}
	if n <= 1 {
		return cty.UnknownVal(ty), nil
	}
	return refinedUnknown(d.b[start:d.pos], ty)
}

// refinedUnknown decodes an unknown value with refinements, ext, with
// cty/msgpack, refusing the refinements it panics on (bounds that
// exclude every number, say).
func refinedUnknown(ext []byte, ty cty.Type) (v cty.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = cty.NilVal, fmt.Errorf("decode msgpack value: unknown value's refinements: %v", p)
		}
	}()
	if v, err = ctymsgpack.Unmarshal(ext, ty); err != nil {
		return cty.NilVal, errSlowPath
	}
	return v, nil
}

// dynamic reads a value of DynamicPseudoType: nil, or the array of its
// type's JSON (as bin) and the value.
func (d *mpReader) dynamic() (cty.Value, error) {
	c := d.b[d.pos]
	if c == 0xc0 {
		d.pos++
		return cty.NullVal(cty.DynamicPseudoType), nil
	}
	if c != 0x92 {
		return cty.NilVal, errSlowPath
	}
	d.pos++
	var n int
	var err error
	c, err = d.peek()
	if err != nil {
		return cty.NilVal, err
	}
	d.pos++
	switch c {
	case 0xc4:
		n, err = d.length(1)
	case 0xc5:
		n, err = d.length(2)
	case 0xc6:
		n, err = d.length(4)
	default:
		return cty.NilVal, errSlowPath
	}
	if err != nil {
		return cty.NilVal, err
	}
	js, err := d.next(n)
	if err != nil {
		return cty.NilVal, err
	}
	var ty cty.Type
	if err := ty.UnmarshalJSON(js); err != nil {
		return cty.NilVal, errSlowPath
	}
	return d.value(ty)
}
