package tfstate

import (
	"fmt"
	"slices"

	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/kyku/action/internal/value"
)

// outputValues is Kyku's view of an output: its value canonical and its
// type as decoded JSON (["map","string"]).
func outputValues(o *Output) (v, typ any, err error) {
	if v, err = value.ParseJSON(o.Value); err != nil {
		return nil, nil, fmt.Errorf("value: %v", err)
	}
	if typ, err = value.ParseJSON(o.Type); err != nil {
		return nil, nil, fmt.Errorf("type: %v", err)
	}
	return v, typ, nil
}

// newOutput is the output OpenTofu would write for value v of type typ
// (Terraform's type syntax, decoded; nil: the type of v as written in the
// configuration: tuples and objects).
func newOutput(v, typ any, sensitive bool) (*Output, error) {
	if typ == nil {
		typ = value.TypeJSON(v)
	}
	tb, err := value.AppendJSON(nil, typ)
	if err != nil {
		return nil, fmt.Errorf("type: %w", err)
	}
	ty, err := ctyjson.UnmarshalType(tb)
	if err != nil {
		return nil, fmt.Errorf("type %s: %v", tb, err)
	}
	vb, err := appendValue(nil, v)
	if err != nil {
		return nil, fmt.Errorf("value: %w", err)
	}
	cv, err := ctyjson.Unmarshal(vb, ty)
	if err != nil {
		return nil, fmt.Errorf("value does not fit its type %s: %v", tb, err)
	}
	if vb, err = ctyjson.Marshal(cv, ty); err != nil {
		return nil, fmt.Errorf("value: %v", err)
	}
	if tb, err = ctyjson.MarshalType(ty); err != nil {
		return nil, fmt.Errorf("type: %v", err)
	}
	return &Output{Value: compactHTML(vb), Type: compactHTML(tb), Sensitive: sensitive}, nil
}

// sortedNames returns m's keys in order.
func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
