package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/value"
)

// Input is the document a policy reads as `input`.
type Input struct {
	// Environment is the environment planned ("" for the default one).
	Environment string `json:"environment"`
	// Changes is the "changes" array of plan.json (the redacted plan:
	// sensitive values "(sensitive)"), with a type the configuration
	// renamed under the provider's own name (plan.Plan.OwnTypes: a second
	// configuration's west_s3_bucket is "type": "aws_s3_bucket",
	// "localType": "west_s3_bucket"), so that renaming a provider's
	// types does not take them out of a rule's reach.
	Changes []any `json:"changes"`
	// Resources is every resource of the configuration, by name.
	Resources map[string]Resource `json:"resources"`
}

// Resource is one resource of the configuration as a policy sees it.
type Resource struct {
	// Type is the provider's own name of the resource's type; LocalType
	// the configuration's, when it renames it (Input.Changes).
	Type      string `json:"type"`
	LocalType string `json:"localType,omitempty"`
	// Properties are the desired properties (defaults applied). A
	// reference to a resource that exists and is kept (not created or
	// replaced by this plan) is resolved to its provider ID
	// ("${vpc}" → "vpc-0a1b"); any other reference is left as written
	// ("${web.publicIp}"). Sensitive values are "(sensitive)". Of a
	// resource a --target plan leaves out, what reads another's
	// attributes is "(sensitive)" too, and a provider's resource has none
	// (what of it is secret is known only by planning it).
	Properties map[string]any `json:"properties"`
}

// NewInput builds the input document of p, which must embed its
// configuration (a plan Kyku just made, or a saved plan; not a redacted
// one).
func NewInput(p *plan.Plan) (Input, error) {
	if p.Config == nil {
		return Input{}, fmt.Errorf("policy input: the plan has no configuration (a redacted plan?)")
	}
	var buf bytes.Buffer
	if err := render.PlanJSON(&buf, render.RedactPlan(p), render.JSONOptions{}); err != nil {
		return Input{}, fmt.Errorf("policy input: %w", err)
	}
	var doc struct {
		Changes []any `json:"changes"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		return Input{}, fmt.Errorf("policy input: %w", err)
	}
	if doc.Changes == nil {
		doc.Changes = []any{}
	}
	for _, c := range doc.Changes {
		m, _ := c.(map[string]any)
		if typ, _ := m["type"].(string); p.OwnTypes[typ] != "" {
			m["type"], m["localType"] = p.OwnTypes[typ], typ
		}
		if typ, _ := m["priorType"].(string); p.OwnTypes[typ] != "" {
			m["priorType"] = p.OwnTypes[typ]
		}
	}
	resource := func(typ string, props map[string]any) Resource {
		if own := p.OwnTypes[typ]; own != "" {
			return Resource{Type: own, LocalType: typ, Properties: props}
		}
		return Resource{Type: typ, Properties: props}
	}

	ids := map[string]string{} // resources whose ID stays what it is
	for _, c := range p.Changes {
		if c.ProviderID != "" && c.Action != plan.Create && c.Action != plan.Replace && c.Action != plan.Destroy {
			ids[c.ResourceID] = c.ProviderID
		}
	}
	lookup := func(r value.Ref) (any, bool) {
		if id, ok := ids[r.Resource]; ok && (r.Attr == "" || r.Attr == "id") {
			return id, true
		}
		return r.String(), true // left as written
	}
	// What is secret, as each change says: read from a sensitive variable
	// or attribute, or marked so by a provider's schema.
	secret := map[string][]string{}
	for _, c := range p.Changes {
		secret[c.ResourceID] = c.Sensitive
		if c.Planned != nil {
			secret[c.ResourceID] = slices.Concat(c.Sensitive, c.Planned.Sensitive)
		}
	}
	in := Input{Environment: p.Environment, Changes: doc.Changes, Resources: map[string]Resource{}}
	for _, r := range p.Config.Resources {
		props := map[string]any{}
		_, covered := secret[r.Name]
		if _, kykus := schema.Lookup(r.Type); !covered && !kykus {
			// A provider's resource --target leaves out: not planned, so
			// its schema's secrets are not known; its type only.
			in.Resources[r.Name] = resource(r.Type, props)
			continue
		}
		for name, v := range r.Properties {
			if slices.Contains(p.WriteOnly[r.Name], name) {
				continue // write-only: sent to the provider, kept and shown nowhere
			}
			if r.SensitiveProp(name) || slices.Contains(secret[r.Name], name) || (!covered && readsAttribute(v)) {
				props[name] = plan.Masked
				continue
			}
			props[name], _ = value.Resolve(v, lookup)
		}
		in.Resources[r.Name] = resource(r.Type, props)
	}
	return in, nil
}

// readsAttribute reports whether v reads an attribute of a resource (not
// its ID), which may be secret.
func readsAttribute(v any) bool {
	for _, r := range value.Refs(v) {
		if r.Attr != "" && r.Attr != "id" && r.Resource != "" {
			return true
		}
	}
	return false
}

// document is in as OPA's generic JSON model.
func (in Input) document() (any, error) {
	if in.Changes == nil {
		in.Changes = []any{}
	}
	if in.Resources == nil {
		in.Resources = map[string]Resource{}
	}
	b, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("policy input: %w", err)
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("policy input: %w", err)
	}
	return doc, nil
}
