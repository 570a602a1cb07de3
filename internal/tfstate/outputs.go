package tfstate

import (
	"fmt"

	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// decodeOutput reads an output as OpenTofu does, through its type: the
// value and type come back as OpenTofu writes them (numbers in their
// shortest form, object attributes and set elements in cty's order).
func decodeOutput(o wireOutput) (*Output, error) {
	if o.Type == nil {
		return nil, fmt.Errorf("no type")
	}
	ty, err := ctyjson.UnmarshalType(o.Type)
	if err != nil {
		return nil, fmt.Errorf("type: %v", err)
	}
	if o.Value == nil {
		return nil, fmt.Errorf("no value")
	}
	if err := checkNumbers(o.Value); err != nil {
		return nil, fmt.Errorf("value: %w", err)
	}
	v, err := ctyjson.Unmarshal(o.Value, ty)
	if err != nil {
		return nil, fmt.Errorf("value: %v", err)
	}
	vb, err := ctyjson.Marshal(v, ty)
	if err != nil {
		return nil, fmt.Errorf("value: %v", err)
	}
	tb, err := ctyjson.MarshalType(ty)
	if err != nil {
		return nil, fmt.Errorf("type: %v", err)
	}
	return &Output{Value: compactHTML(vb), Type: compactHTML(tb), Sensitive: o.Sensitive, Deprecated: o.Deprecated}, nil
}
