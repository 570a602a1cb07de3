package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// ChangesDigest is the sha256 (lowercase hex) of what a plan would do, in
// a canonical form: the environment, provider, deploy prefix, config hash,
// targets, the provider's own names of renamed types (OwnTypes) and every change (action, resource, type, cloud name, provider
// ID, an import's ID as written, property changes, dependencies, reason, where a move comes from and
// the cloud name it renames, a replace's order), in plan order: moves and imports included. It
// leaves out what does not change the cloud or varies between two plans of
// the same thing: CreatedAt, the state serial and lineage (checked by the
// engine under the lock), outputs read back on no-op changes, the embedded
// config itself (its hash is in). Sensitive property values are masked
// (the config hash covers the desired ones), so the digest shown in a
// comment says nothing about them. A Terraform provider's planned values
// are in it as the property changes show them, with the schema version
// and whether the configuration was known; its planned bytes and private
// data are not (they hold sensitive values in clear): the engine compares
// those byte for byte besides (Planned.Same), and the plan file's own
// digest covers them.
//
// Two plans with the same digest make the same changes. This is the one
// definition of "the same plan": the PR review compares the digest shown in
// Kyku's plan comment, the saved plan's and a fresh plan's with it, and the
// engine compares a saved plan with the plan of its own configuration
// against the current state with it before applying the saved plan.
func ChangesDigest(p *Plan) (string, error) {
	type change struct {
		Action       Action       `json:"action"`
		Resource     string       `json:"resource"`
		Type         string       `json:"type"`
		PriorType    string       `json:"priorType,omitempty"`
		CloudName    string       `json:"cloudName,omitempty"`
		ProviderID   string       `json:"providerId,omitempty"`
		Level        int          `json:"level"`
		Reason       string       `json:"reason,omitempty"`
		Dependencies []string     `json:"dependencies,omitempty"`
		Properties   []PropChange `json:"properties,omitempty"`
		// An import: by which ID, as its entry gives it.
		ImportID string `json:"importId,omitempty"`
		// A move: from where, and the cloud name it renames.
		MovedFrom      string `json:"movedFrom,omitempty"`
		PriorCloudName string `json:"priorCloudName,omitempty"`
		// A replace: in which order.
		ReplaceOrder ReplaceOrder `json:"replaceOrder,omitempty"`
		// A provider's own plan: its schema version, whether apply sends
		// the planned state as it is.
		Planned       bool  `json:"planned,omitempty"`
		SchemaVersion int64 `json:"schemaVersion,omitempty"`
		ConfigKnown   bool  `json:"configKnown,omitempty"`
	}
	canon := struct {
		Version     int               `json:"v"`
		Environment string            `json:"environment"`
		Provider    string            `json:"provider"`
		Prefix      string            `json:"prefix"`
		ConfigHash  string            `json:"configHash"`
		Destroy     bool              `json:"destroy"`
		Targets     []string          `json:"targets,omitempty"`
		Exclude     []string          `json:"exclude,omitempty"`
		KeptOutputs []string          `json:"keptOutputs,omitempty"` // what the apply leaves as it is
		Replace     []string          `json:"replace,omitempty"`
		Forget      []string          `json:"forgetInterrupted,omitempty"` // what the apply drops from state
		OwnTypes    map[string]string `json:"ownTypes,omitempty"`
		Changes     []change          `json:"changes"`
	}{Version: 1, Environment: p.Environment, Provider: p.Provider, Prefix: p.Prefix, ConfigHash: p.ConfigHash, Destroy: p.Destroy, Targets: p.Targets, Exclude: p.Exclude, KeptOutputs: p.KeptOutputs, Replace: p.Replace,
		Forget: p.ForgetInterrupted, OwnTypes: p.OwnTypes}
	canon.Changes = make([]change, len(p.Changes))
	for i, c := range p.Changes {
		props := make([]PropChange, len(c.Properties))
		for j, pc := range c.Properties {
			if pc.Sensitive {
				pc.Old, pc.New = Masked, Masked
			}
			props[j] = pc
		}
		canon.Changes[i] = change{
			Action: c.Action, Resource: c.ResourceID, Type: c.Type, PriorType: c.PriorType, CloudName: c.CloudName,
			ProviderID: c.ProviderID, Level: c.Level, Reason: c.Reason, Dependencies: c.Dependencies, Properties: props,
			ImportID: c.ImportID, MovedFrom: c.MovedFrom, PriorCloudName: c.PriorCloudName, ReplaceOrder: c.ReplaceOrder,
		}
		if c.Planned != nil {
			canon.Changes[i].Planned, canon.Changes[i].SchemaVersion, canon.Changes[i].ConfigKnown = true, c.Planned.SchemaVersion, c.Planned.ConfigKnown
		}
	}
	b, err := json.Marshal(canon)
	if err != nil {
		return "", fmt.Errorf("digest plan: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
