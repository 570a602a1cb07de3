package tfstate

import (
	"encoding/json"
	"fmt"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Path is the path of a value inside an object's attributes: its steps
// from the top, as sensitive_attributes holds them.
type Path []PathStep

// PathStep is one step: an attribute by name (Attr), or an element of a
// list, map or set by key (Index: the key's value with its type, as
// {"value":"a","type":"string"}).
type PathStep struct {
	Attr  string
	Index json.RawMessage
}

// Top is the name of the top-level attribute the path starts at; "" when
// it does not start at one.
func (p Path) Top() string {
	if len(p) == 0 || p[0].Index != nil {
		return ""
	}
	return p[0].Attr
}

// AttrPath is the path of the top-level attribute name.
func AttrPath(name string) Path { return Path{{Attr: name}} }

type wireStep struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// decodePaths reads sensitive_attributes, writing index keys as OpenTofu
// writes them back (through cty: a number's digits, a string's escapes).
func decodePaths(raw json.RawMessage) ([]Path, error) {
	var wire [][]wireStep
	if err := json.Unmarshal(raw, &wire); err != nil {
		return nil, fmt.Errorf("want a list of paths, each a list of {\"type\", \"value\"} steps: %v", plainJSONError(err))
	}
	paths := make([]Path, 0, len(wire))
	for i, w := range wire {
		p := make(Path, 0, len(w))
		for j, st := range w {
			switch st.Type {
			case "get_attr":
				var name string
				if err := json.Unmarshal(st.Value, &name); err != nil {
					return nil, fmt.Errorf("path %d step %d: get_attr wants a string value", i, j)
				}
				p = append(p, PathStep{Attr: name})
			case "index":
				if err := checkNumbers(st.Value); err != nil {
					return nil, fmt.Errorf("path %d step %d: %w", i, j, err)
				}
				k, err := ctyjson.Unmarshal(st.Value, cty.DynamicPseudoType)
				if err != nil {
					return nil, fmt.Errorf("path %d step %d: index wants a {\"value\", \"type\"} key: %v", i, j, err)
				}
				b, err := ctyjson.Marshal(k, cty.DynamicPseudoType)
				if err != nil {
					return nil, fmt.Errorf("path %d step %d: index key: %v", i, j, err)
				}
				p = append(p, PathStep{Index: compactHTML(b)})
			default:
				return nil, fmt.Errorf("path %d step %d: unknown step type %q (get_attr or index)", i, j, st.Type)
			}
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// appendPaths writes paths as sensitive_attributes holds them: [] for none.
func appendPaths(b []byte, paths []Path) []byte {
	b = append(b, '[')
	for i, p := range paths {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, st := range p {
			if j > 0 {
				b = append(b, ',')
			}
			if st.Index != nil {
				b = append(b, `{"type":"index","value":`...)
				b = append(b, st.Index...)
			} else {
				b = append(b, `{"type":"get_attr","value":`...)
				b = appendString(b, st.Attr)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, ']')
}
