package tfplugin

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/tfschema"
	"github.com/kyku/action/internal/value"
)

// DecodeValues decodes b, the msgpack of an object of type ty, as Kyku's
// values: tfschema.FromCtyObject(UnmarshalMsgpack(b, ty)), and its
// errors, without building the cty value where the input is plain
// (objects, lists, maps, strings, bools, integers of at most 2^53,
// unknowns); anything else, and anything malformed,
// goes that way.
func DecodeValues(b []byte, ty cty.Type) (map[string]any, error) {
	if ty.IsObjectType() {
		d := mpReader{b: b}
		if v, err := d.canonical(ty); err == nil {
			m, _ := v.(map[string]any)
			return m, nil
		}
	}
	v, err := UnmarshalMsgpack(b, ty)
	if err != nil {
		return nil, err
	}
	return tfschema.FromCtyObject(v), nil
}

// CheckValues is the error of DecodeValues(b, ty), without building the
// values where the input is plain.
func CheckValues(b []byte, ty cty.Type) error {
	if ty.IsObjectType() {
		d := mpReader{b: b, discard: true}
		if _, err := d.canonical(ty); err == nil {
			return nil
		}
	}
	_, err := UnmarshalMsgpack(b, ty)
	return err
}

// discarded is what canonical reads of a value that is not null when it
// builds none (mpReader.discard).
const discarded = "discarded"

// canonical reads a value of type ty as tfschema.FromCty gives it; any
// error is errSlowPath. With d.discard it only reads, and gives
// discarded for a value that is not null.
func (d *mpReader) canonical(ty cty.Type) (any, error) {
	c, err := d.peek()
	if err != nil {
		return nil, err
	}
	switch {
	case ty == cty.DynamicPseudoType:
		return nil, errSlowPath
	case isExt(c):
		if _, err := d.unknown(ty); err != nil {
			return nil, errSlowPath
		}
		return value.Unknown, nil // refined or not
	case c == 0xc0:
		d.pos++
		return nil, nil
	case ty == cty.String:
		p, err := d.rawStr()
		switch {
		case err != nil:
			return nil, err
		case d.discard:
			return discarded, nil
		}
		return normalized(d.substr(p)), nil
	case ty == cty.Number:
		n, err := d.integer()
		switch {
		case err != nil:
			return nil, err
		case d.discard:
			return discarded, nil
		}
		return n, nil
	case ty == cty.Bool:
		d.pos++
		switch c {
		case 0xc3:
			return true, nil
		case 0xc2:
			return false, nil
		}
		return nil, errSlowPath
	case ty.IsListType(), ty.IsSetType():
		n, err := d.arrayLen()
		if err != nil || ty.IsSetType() && n > 0 { // a set's order is cty's
			return nil, errSlowPath
		}
		if d.discard {
			for range n {
				if _, err := d.canonical(ty.ElementType()); err != nil {
					return nil, err
				}
			}
			return discarded, nil
		}
		out := make([]any, n)
		for i := range out {
			if out[i], err = d.canonical(ty.ElementType()); err != nil {
				return nil, err
			}
		}
		return out, nil
	case ty.IsMapType():
		n, err := d.mapLen()
		if err != nil {
			return nil, err
		}
		var out map[string]any
		if !d.discard {
			out = make(map[string]any, n)
		}
		for range n {
			k, err := d.rawStr()
			if err != nil || !asciiBytes(k) {
				return nil, errSlowPath
			}
			var key string
			if !d.discard {
				key = d.substr(k)
			}
			v, err := d.canonical(ty.ElementType())
			if err != nil {
				return nil, err
			}
			if !d.discard {
				out[key] = v
			}
		}
		if d.discard {
			return discarded, nil
		}
		return out, nil
	case ty.IsObjectType():
		n, err := d.mapLen()
		if err != nil {
			return nil, err
		}
		atys := ty.AttributeTypes()
		if n != 0 && n != len(atys) {
			return nil, errSlowPath
		}
		var out map[string]any
		if !d.discard {
			out = make(map[string]any, n)
		}
		for range n {
			k, err := d.rawStr()
			if err != nil {
				return nil, err
			}
			aty, ok := atys[string(k)]
			if !ok {
				return nil, errSlowPath
			}
			var key string
			if !d.discard {
				key = d.substr(k)
			}
			v, err := d.canonical(aty)
			switch {
			case err != nil:
				return nil, err
			case d.discard:
			case v == nil:
				delete(out, key) // FromCty leaves a null attribute out
			default:
				out[key] = v
			}
		}
		if d.discard {
			return discarded, nil
		}
		return out, nil
	}
	return nil, errSlowPath
}

// integer reads a msgpack integer of at most 2^53 as the float64
// tfschema.FromCty makes of it; anything else is errSlowPath.
func (d *mpReader) integer() (float64, error) {
	c := d.b[d.pos]
	var n int64
	switch {
	case c <= 0x7f:
		d.pos++
		n = int64(c)
	case c >= 0xe0:
		d.pos++
		n = int64(int8(c))
	case c >= 0xcc && c <= 0xcf: // uint 8, 16, 32, 64
		d.pos++
		u, err := d.uint(1 << (c - 0xcc))
		if err != nil || u > 1<<53 {
			return 0, errSlowPath
		}
		n = int64(u)
	case c >= 0xd0 && c <= 0xd3: // int 8, 16, 32, 64
		d.pos++
		size := 1 << (c - 0xd0)
		u, err := d.uint(size)
		if err != nil {
			return 0, err
		}
		shift := 64 - 8*size
		n = int64(u<<shift) >> shift
	default:
		return 0, errSlowPath
	}
	if n > 1<<53 || n < -(1<<53) {
		return 0, errSlowPath
	}
	return float64(n), nil
}
