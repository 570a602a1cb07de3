package tfstate

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// Extra is what Kyku's model holds of a state and a Terraform state does
// not: the deploy prefix and, per resource, what a Kyku apply recorded
// beyond the object's attributes. A backend keeps it beside the state. It
// belongs to one version of the state (Lineage, Serial): once OpenTofu has
// written another, it no longer applies and is left out.
type Extra struct {
	Lineage string `json:"lineage"`
	Serial  uint64 `json:"serial"`
	// Digest is the backend's fingerprint of the state's bytes, which
	// tells a state OpenTofu wrote with the same serial (tofu state push
	// -force) from the one Extra belongs to.
	Digest    string                    `json:"digest,omitempty"`
	Prefix    string                    `json:"prefix,omitempty"`
	Resources map[string]*ExtraResource `json:"resources,omitempty"`
	// Interrupted is state.File.Interrupted: the creates a Kyku apply
	// started and never recorded the outcome of. Unlike the rest it
	// outlives a state OpenTofu wrote since (same lineage), for each
	// address that state still holds no object at: an object created
	// there may exist that no state records.
	Interrupted map[string]string `json:"interrupted,omitempty"`
}

// ExtraResource is what Kyku recorded of one resource instance that its
// Terraform state has no place for.
type ExtraResource struct {
	Config    map[string]any `json:"config,omitempty"`
	CloudName string         `json:"cloudName,omitempty"`
	Protect   bool           `json:"protect,omitempty"`
	// ProviderID, when the one Kyku recorded is not the object's "id"
	// attribute.
	ProviderID string `json:"providerId,omitempty"`
	// Basis is what the resource was last applied from, in digests
	// (state.Basis): with it a plan takes the object from state unread.
	// Like all of Extra, it is dropped once OpenTofu writes the state:
	// the next plan reads the object.
	Basis *state.Basis `json:"basis,omitempty"`
}

// EncodeExtra is e's JSON as json.Marshal writes it, and a newline. It
// appends to one buffer, without reflection: an apply writes it after
// every write of the state, an entry per resource.
func EncodeExtra(e *Extra) ([]byte, error) {
	if e == nil {
		return []byte("null\n"), nil
	}
	b, err := e.appendJSON(make([]byte, 0, 4096))
	if err != nil {
		return nil, fmt.Errorf("encode kyku's additions to the state: %w", err)
	}
	return append(b, '\n'), nil
}

// appendJSON appends e as json.Marshal writes it: its fields in their
// order, the empty ones its tags omit left out, map keys sorted.
func (e *Extra) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"lineage":`...)
	b = appendString(b, e.Lineage)
	b = append(b, `,"serial":`...)
	b = strconv.AppendUint(b, e.Serial, 10)
	if e.Digest != "" {
		b = appendString(append(b, `,"digest":`...), e.Digest)
	}
	if e.Prefix != "" {
		b = appendString(append(b, `,"prefix":`...), e.Prefix)
	}
	if len(e.Resources) > 0 {
		b = append(b, `,"resources":{`...)
		start, names := len(b), slices.Sorted(maps.Keys(e.Resources))
		for i, name := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendString(b, name), ':')
			var err error
			if b, err = e.Resources[name].appendJSON(b); err != nil {
				return nil, fmt.Errorf("resource %s: %w", name, err)
			}
			if i+1 == extraSample && len(names) > 2*extraSample {
				// The resources of a state are mostly alike: b is grown
				// once to what all of them take at the rate of the first,
				// and a tenth more, where append's steps would allocate
				// several times the whole.
				rest := (len(b) - start) / extraSample * (len(names) - extraSample)
				b = slices.Grow(b, rest+rest/10+256)
			}
		}
		b = append(b, '}')
	}
	if len(e.Interrupted) > 0 {
		b = append(b, `,"interrupted":{`...)
		for i, name := range slices.Sorted(maps.Keys(e.Interrupted)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendString(b, name), ':')
			b = appendString(b, e.Interrupted[name])
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// extraSample is how many resources EncodeExtra writes before it sizes
// its buffer for the rest.
const extraSample = 32

// appendJSON appends r (nil: null) as json.Marshal writes it.
func (r *ExtraResource) appendJSON(b []byte) ([]byte, error) {
	if r == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '{')
	start := len(b)
	var err error
	if len(r.Config) > 0 {
		if b, err = value.AppendJSON(appendKey(b, start, "config"), r.Config); err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
	}
	if r.CloudName != "" {
		b = appendString(appendKey(b, start, "cloudName"), r.CloudName)
	}
	if r.Protect {
		b = append(appendKey(b, start, "protect"), "true"...)
	}
	if r.ProviderID != "" {
		b = appendString(appendKey(b, start, "providerId"), r.ProviderID)
	}
	if r.Basis != nil {
		if b, err = appendBasis(appendKey(b, start, "basis"), r.Basis); err != nil {
			return nil, fmt.Errorf("basis: %w", err)
		}
	}
	return append(b, '}'), nil
}

// appendKey appends "key": to an object whose fields start at b[start],
// after a comma when one is there already.
func appendKey(b []byte, start int, key string) []byte {
	if len(b) > start {
		b = append(b, ',')
	}
	b = append(append(b, '"'), key...)
	return append(b, '"', ':')
}

// appendBasis appends s as json.Marshal writes a state.Basis.
func appendBasis(b []byte, s *state.Basis) ([]byte, error) {
	b = appendString(append(b, `{"config":`...), s.Config)
	b = appendString(append(b, `,"provider":`...), s.Provider)
	b, err := s.ReadAt.AppendText(append(b, `,"readAt":"`...))
	if err != nil {
		return nil, fmt.Errorf("readAt: %w", err)
	}
	b = append(b, '"')
	if s.Version != "" {
		b = appendString(append(b, `,"version":`...), s.Version)
	}
	return append(b, '}'), nil
}

// DecodeExtra reads what EncodeExtra wrote; name starts its errors.
func DecodeExtra(name string, data []byte) (*Extra, error) {
	var e Extra
	if readExtra(data, &e) {
		return &e, nil
	}
	// What wireReader leaves to encoding/json, whose result stands. It
	// decodes a configuration into Kyku's canonical model already
	// (float64, string, bool, nil, []any, map[string]any): no copy
	// through value.Normalize is needed.
	e = Extra{}
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("%s: %s", name, plainJSONError(err))
	}
	return &e, nil
}

func (r *ExtraResource) empty() bool {
	return r.Config == nil && r.CloudName == "" && !r.Protect && r.ProviderID == "" && r.Basis == nil
}

// Empty reports whether e holds nothing beyond the state version it
// belongs to.
func (e *Extra) Empty() bool {
	return e.Prefix == "" && len(e.Resources) == 0 && len(e.Interrupted) == 0
}
