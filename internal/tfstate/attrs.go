package tfstate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/kyku/action/internal/value"
)

// attr is one top-level attribute of an object's JSON, its value as written.
type attr struct {
	name string
	raw  json.RawMessage
}

// splitAttrs returns the top-level attributes of the JSON object raw in
// their order, each value's bytes as they are.
func splitAttrs(raw json.RawMessage) ([]attr, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("attributes are not a JSON object")
	}
	var out []attr
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("attributes: %v", plainJSONError(err))
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("attributes.%s: %v", name, plainJSONError(err))
		}
		out = append(out, attr{name: name, raw: v})
	}
	if _, err := dec.Token(); err != nil && err != io.EOF {
		return nil, fmt.Errorf("attributes: %v", plainJSONError(err))
	}
	return out, nil
}

// attrValues is Kyku's view of an object's attributes: each value
// canonical (package value), null attributes left out.
func attrValues(raw json.RawMessage) (map[string]any, error) { return attrValuesWith(raw, nil) }

// attrValuesWith is attrValues taking each string equal to a key of
// names from it (value.ParseJSONWith): the attribute names of thousands
// of objects of a few types, allocated once.
func attrValuesWith(raw json.RawMessage, names map[string]string) (map[string]any, error) {
	if len(raw) == 0 {
		return map[string]any{}, nil
	}
	v, err := value.ParseJSONWith(raw, names)
	if err != nil {
		return nil, fmt.Errorf("attributes: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("attributes are not a JSON object")
	}
	for k, x := range m {
		if x == nil {
			delete(m, k)
		}
	}
	return m, nil
}

// patchAttrs writes next (Kyku's attribute values) over the object orig:
// an attribute whose value is unchanged keeps its bytes, one next lacks
// becomes null, one orig lacks is added; attributes are in name order, as
// OpenTofu writes an object.
func patchAttrs(orig json.RawMessage, next map[string]any) (json.RawMessage, error) {
	var old []attr
	if len(orig) > 0 {
		var err error
		if old, err = splitAttrs(orig); err != nil {
			return nil, err
		}
	}
	byName := make(map[string]json.RawMessage, len(old))
	for _, a := range old {
		byName[a.name] = a.raw
	}
	names := make([]string, 0, len(old)+len(next))
	for _, a := range old {
		names = append(names, a.name)
	}
	for n := range next {
		if _, ok := byName[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	b := []byte{'{'}
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, n)
		b = append(b, ':')
		v, has := next[n]
		raw, had := byName[n]
		switch {
		case had && has:
			if was, err := value.ParseJSON(raw); err == nil && value.Equal(was, v) {
				b = append(b, raw...)
				continue
			}
			fallthrough
		case has:
			var err error
			if b, err = appendValue(b, v); err != nil {
				return nil, fmt.Errorf("attribute %s: %w", n, err)
			}
		default:
			b = append(b, "null"...)
		}
	}
	return compactHTML(append(b, '}')), nil
}

// appendValue writes a canonical value as cty writes it in a state: object
// keys in order, numbers in decimal without an exponent.
func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case dynamicAttr:
		b = append(b, `{"value":`...)
		b, err := appendValue(b, x.value)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"type":`...)
		if b, err = appendValue(b, x.typ); err != nil {
			return nil, err
		}
		return append(b, '}'), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return appendString(b, x), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("%v is not a number JSON can hold", x)
		}
		return strconv.AppendFloat(b, x, 'f', -1, 64), nil
	case json.Number: // a number a float64 cannot show: its exact text
		f, ok := value.BigFloat(x)
		if !ok {
			return nil, fmt.Errorf("%q is not a number", string(x))
		}
		return append(b, f.Text('f', -1)...), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, x[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("a %s is not a state value", value.KindOf(v))
}
