package tfstate

import (
	"encoding/json"
	"fmt"

	"github.com/kyku/action/internal/state"
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

// EncodeExtra is e's JSON.
func EncodeExtra(e *Extra) ([]byte, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("encode kyku's additions to the state: %w", err)
	}
	return append(b, '\n'), nil
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
