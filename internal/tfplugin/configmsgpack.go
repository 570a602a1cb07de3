package tfplugin

import (
	"fmt"
	"math"
	"slices"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/tfschema"
	"github.com/kyku/action/internal/value"
)

// EncodedConfig is a configuration as the protocol carries it: the
// msgpack of tfschema.Config's value, with the type of the block.
type EncodedConfig struct {
	Msgpack []byte
	// Value is tfschema.Config's value when EncodeConfig built it (the
	// configuration holds something it does not write directly),
	// cty.NilVal otherwise.
	Value cty.Value
	// Known: the configuration holds no unknown value.
	Known bool
}

// EncodeConfig is tfschema.Config(b, props) as a value of b's type in
// msgpack: the same bytes, the same diagnostics. A configuration of plain
// values (strings, numbers, bools, maps and lists of strings; no set, no nested
// block set, nothing unknown, nothing a diagnostic is about) is written
// straight from props, without the cty value; any other goes through
// tfschema.Config, whose value is then Value. Msgpack is nil when the
// diagnostics hold an error.
func EncodeConfig(b *tfschema.Block, props map[string]any) (EncodedConfig, tfschema.Diagnostics, error) {
	// room for a small resource's configuration at once (a null_resource's
	// triggers take about 200 bytes), instead of growing by copying
	if out, ok := appendConfig(make([]byte, 0, 256), b, props); ok {
		return EncodedConfig{Msgpack: out, Known: true}, nil, nil
	}
	v, ds := tfschema.Config(b, props)
	enc := EncodedConfig{Value: v, Known: v.IsWhollyKnown()}
	if ds.HasErrors() {
		return enc, ds, nil
	}
	out, err := AppendMsgpack(make([]byte, 0, 64), v, b.ImpliedType())
	if err != nil {
		return enc, ds, fmt.Errorf("encode value: %w", err)
	}
	enc.Msgpack = out
	return enc, ds, nil
}

// appendConfig appends the msgpack of tfschema.Config(b, props) to buf
// when props hold only what it writes directly; ok false otherwise (buf
// then holds a part of it).
func appendConfig(buf []byte, b *tfschema.Block, props map[string]any) (_ []byte, ok bool) {
	for k := range props {
		if b.Attributes[k] == nil && b.BlockTypes[k] == nil {
			return buf, false // an unsupported argument
		}
	}
	names := b.Order()
	buf = appendMapLen(buf, len(names))
	for _, name := range names {
		a, nb := b.Attributes[name], b.BlockTypes[name]
		if !ascii(name) || a != nil && nb != nil {
			return buf, false
		}
		buf = appendStr(buf, name)
		if a != nil {
			buf, ok = appendConfigAttribute(buf, a, props[name])
		} else {
			buf, ok = appendAbsentBlock(buf, nb, props[name])
		}
		if !ok {
			return buf, false
		}
	}
	return buf, true
}

// appendConfigAttribute writes an attribute's value where tfschema.Config
// would report nothing about it and convert nothing.
func appendConfigAttribute(buf []byte, a *tfschema.Attribute, v any) ([]byte, bool) {
	switch {
	case v == nil:
		return append(buf, 0xc0), !a.Required
	case a.Computed && !a.Optional && !a.Required, a.Deprecated, a.NestedType != nil:
		return buf, false
	}
	return appendPlain(buf, v, a.Type)
}

// appendPlain writes v as a value of type ty where it is one as it is: a
// string, number or bool of that type, a map or list of known strings
// for a map or list of strings (an empty set).
func appendPlain(buf []byte, v any, ty cty.Type) ([]byte, bool) {
	switch ty {
	case cty.String:
		s, ok := v.(string)
		if !ok || tfschema.IsUnknown(s) {
			return buf, false
		}
		return appendStr(buf, normalized(s)), true
	case cty.Bool:
		switch v {
		case true:
			return append(buf, 0xc3), true
		case false:
			return append(buf, 0xc2), true
		}
		return buf, false
	case cty.Number:
		f, ok := v.(float64)
		if !ok {
			return buf, false
		}
		if f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
			return appendInt(buf, int64(f)), true
		}
		bf, ok := value.BigFloat(f)
		if !ok {
			return buf, false
		}
		return appendBigFloat(buf, bf), true
	}
	if !ty.IsCollectionType() || ty.ElementType() != cty.String {
		return buf, false
	}
	if ty.IsMapType() {
		m, ok := v.(map[string]any)
		if !ok {
			return buf, false
		}
		var arr [16]string
		keys := arr[:0]
		for k := range m {
			if !ascii(k) {
				return buf, false
			}
			keys = append(keys, k)
		}
		slices.Sort(keys)
		buf = appendMapLen(buf, len(keys))
		for _, k := range keys {
			if buf, ok = appendPlain(appendStr(buf, k), m[k], cty.String); !ok {
				return buf, false
			}
		}
		return buf, true
	}
	l, ok := v.([]any)
	if !ok || ty.IsSetType() && len(l) > 0 { // a set's order is cty's
		return buf, false
	}
	buf = appendArrayLen(buf, len(l))
	for _, e := range l {
		if buf, ok = appendPlain(buf, e, cty.String); !ok {
			return buf, false
		}
	}
	return buf, true
}

// appendAbsentBlock writes a nested block type that props leave out
// (tfschema.Config's null single block, empty group, empty collection of
// blocks); ok false for one that is set, or that Config would report.
func appendAbsentBlock(buf []byte, nb *tfschema.NestedBlock, v any) ([]byte, bool) {
	if v != nil {
		return buf, false
	}
	switch nb.Nesting {
	case tfschema.NestingSingle:
		return append(buf, 0xc0), true
	case tfschema.NestingGroup:
		return appendConfig(buf, &nb.Block, nil)
	case tfschema.NestingList, tfschema.NestingSet, tfschema.NestingMap:
		if nb.MinItems > 0 {
			return buf, false // too few blocks
		}
		// A list or map of blocks holding a dynamic attribute is a
		// dynamic value, an empty tuple or object: its type, then it.
		dynamic := nb.Nesting != tfschema.NestingSet && nb.Block.ImpliedType().HasDynamicTypes()
		if nb.Nesting == tfschema.NestingMap {
			if dynamic {
				buf = appendBin(append(buf, 0x92), emptyObjectJSON)
			}
			return appendMapLen(buf, 0), true
		}
		if dynamic {
			buf = appendBin(append(buf, 0x92), emptyTupleJSON)
		}
		return appendArrayLen(buf, 0), true
	}
	return buf, false
}

// The JSON of the types of an empty tuple and object, as a dynamic value
// carries its type.
var emptyTupleJSON, emptyObjectJSON = []byte(`["tuple",[]]`), []byte(`["object",{}]`)

// normalized is s as cty holds it (NFC).
func normalized(s string) string {
	if ascii(s) {
		return s
	}
	return cty.NormalizeString(s)
}

// ascii reports whether s is all ASCII, which normalization leaves as it is.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func asciiBytes(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}
