package render

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// JSONOptions shape the --json plan output.
type JSONOptions struct {
	OmitNoOp bool // leave unchanged resources out of "changes" (they stay counted)
}

// jsonPlan is the --json document: the seed's changes and counters, plus
// what a script needs to know which state and config the plan is for.
type jsonPlan struct {
	FormatVersion int          `json:"formatVersion"`
	Environment   string       `json:"environment"`
	Provider      string       `json:"provider,omitempty"` // of Kyku's own types, when the plan has any
	Lineage       string       `json:"lineage"`
	Serial        int64        `json:"serial"`
	ConfigHash    string       `json:"configHash"`
	HasChanges    bool         `json:"hasChanges"`
	Targets       []string     `json:"targets,omitempty"`
	Exclude       []string     `json:"exclude,omitempty"`
	Replace       []string     `json:"replace,omitempty"`
	Changes       []jsonChange `json:"changes"`
	// OutputChanges are the outputs apply adds, changes or removes
	// (name, action, old, new; secrets masked), and the configuration's
	// other outputs with action no-op, by name.
	OutputChanges []plan.OutputChange `json:"outputChanges,omitempty"`
	Counters      jsonCounters        `json:"counters"`

	// Warnings are what the plan reports without refusing it (a check
	// block's assertion that fails), each "file:line:col: message".
	Warnings []string `json:"warnings,omitempty"`
	// Reads say how much of the state the plan read from the cloud.
	Reads *plan.Reads `json:"reads,omitempty"`
}

type jsonChange struct {
	Action       plan.Action    `json:"action"`
	ResourceID   string         `json:"resourceId"`
	Type         string         `json:"type"`
	Provider     string         `json:"provider,omitempty"`  // the provider that owns type
	PriorType    string         `json:"priorType,omitempty"` // a replace that changes the type: the type destroyed
	Level        int            `json:"level"`
	ProviderID   string         `json:"providerId,omitempty"`
	CloudName    string         `json:"cloudName,omitempty"`
	Reason       string         `json:"reason,omitempty"`
	Dependencies []string       `json:"dependencies,omitempty"`
	Properties   []jsonProperty `json:"properties"`
	// An import (alone, or followed by an update or replace): the ID it
	// imports by, as its entry gives it, which may differ from the
	// object's own (providerId).
	ImportID string `json:"importId,omitempty"`
	// A move: the name state knew the resource by, and the cloud name
	// before a rename.
	MovedFrom      string `json:"movedFrom,omitempty"`
	PriorCloudName string `json:"priorCloudName,omitempty"`
	// A replace: destroy-before-create or create-before-destroy (then
	// priorCloudName is the destroyed object's, cloudName the
	// replacement's).
	ReplaceOrder plan.ReplaceOrder `json:"replaceOrder,omitempty"`
	// Planned is the whole object after the change, as far as the plan
	// knows it: "(known after apply)" where only apply will tell,
	// "(sensitive)" at each of SensitivePaths (Terraform's path syntax:
	// .password, .tags["env"], .rule[0]); none for a destroy or forget,
	// or a change whose provider does not plan whole objects.
	Planned        any      `json:"planned,omitempty"`
	SensitivePaths []string `json:"sensitivePaths,omitempty"`
	// Read is false for an object the plan took from state, neither read
	// nor planned by its provider (left out when it was read); LastRead
	// is when it was last read.
	Read     *bool      `json:"read,omitempty"`
	LastRead *time.Time `json:"lastRead,omitempty"`
}

type jsonProperty struct {
	Path          string `json:"path"`
	Old           any    `json:"old"`
	New           any    `json:"new"`
	Sensitive     bool   `json:"sensitive,omitempty"`
	ForcesReplace bool   `json:"forcesReplace,omitempty"`
	ReplaceReason string `json:"replaceReason,omitempty"` // why, as the provider says it
	Unknown       bool   `json:"unknown,omitempty"`
}

type jsonCounters struct {
	plan.Counters
	Forget int `json:"forget"`
}

// PlanJSON writes the plan as indented JSON with a trailing newline:
// environment, provider (of Kyku's own types, left out when no change is
// of one), lineage, serial, configHash, hasChanges, changes (action,
// resourceId, type, provider, level, properties…), outputChanges and
// counters. Sensitive values are written as "(sensitive)" (a create's
// old value and a destroy's new one are null); the output never holds
// one in clear.
func PlanJSON(w io.Writer, p *plan.Plan, opts JSONOptions) error {
	out := jsonPlan{
		FormatVersion: p.FormatVersion,
		Environment:   p.Environment,
		Provider:      kykuProvider(p),
		Lineage:       p.Lineage,
		Serial:        p.Serial,
		ConfigHash:    p.ConfigHash,
		HasChanges:    p.HasChanges(),
		Warnings:      p.Warnings,
		Targets:       p.Targets,
		Exclude:       p.Exclude,
		Replace:       p.Replace,
		Changes:       make([]jsonChange, 0, len(p.Changes)),
		OutputChanges: jsonOutputs(p.OutputChanges, p.UnchangedOutputs),
		Counters:      jsonCounters{Counters: p.Counters, Forget: forgets(p)},
		Reads:         p.Reads,
	}
	for _, c := range p.Changes {
		if opts.OmitNoOp && c.Action == plan.NoOp {
			continue
		}
		jc := jsonChange{
			Action: c.Action, ResourceID: c.ResourceID, Type: c.Type, Provider: c.Provider, PriorType: c.PriorType, Level: c.Level,
			ProviderID: c.ProviderID, CloudName: c.CloudName, Reason: c.Reason,
			Dependencies: c.Dependencies, Properties: make([]jsonProperty, 0, len(c.Properties)),
			MovedFrom: c.MovedFrom, PriorCloudName: c.PriorCloudName, ReplaceOrder: c.ReplaceOrder,
		}
		if c.ImportID != "" {
			jc.ImportID = c.ImportID
		}
		if c.NotRead {
			jc.Read, jc.LastRead = new(bool), c.LastRead
		}
		jc.Planned, jc.SensitivePaths = plannedValue(c)
		for _, pc := range c.Properties {
			jc.Properties = append(jc.Properties, jsonProperty{
				Path: pc.Path, Old: oldValue(pc), New: newValue(pc),
				Sensitive: pc.Sensitive, ForcesReplace: pc.ForcesReplace, ReplaceReason: pc.ReplaceReason, Unknown: pc.Unknown,
			})
		}
		out.Changes = append(out.Changes, jc)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("encode plan json: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write plan json: %w", err)
	}
	return nil
}

// jsonOutputs are the output changes and the unchanged outputs as --json
// writes them, by name: each part known only after apply the marker
// alone.
func jsonOutputs(ocs, unchanged []plan.OutputChange) []plan.OutputChange {
	if len(ocs)+len(unchanged) == 0 {
		return nil
	}
	out := make([]plan.OutputChange, 0, len(ocs)+len(unchanged))
	for _, oc := range slices.Concat(ocs, unchanged) {
		if oc.Unknown {
			oc.New = unknownParts(oc.New)
		}
		out = append(out, oc)
	}
	slices.SortStableFunc(out, func(a, b plan.OutputChange) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// kykuProvider is the plan's provider of Kyku's own types when one of its
// changes is of that provider (or of a plan that does not say), else "":
// a plan of Terraform providers' resources alone names no default.
func kykuProvider(p *plan.Plan) string {
	for _, c := range p.Changes {
		if c.Provider == "" || c.Provider == p.Provider {
			return p.Provider
		}
	}
	return ""
}

// RedactPlan returns a deep copy of p that is safe to publish (the plan.json
// artifact): every sensitive property value replaced by plan.Masked, the
// embedded config dropped (it may hold sensitive values) and Redacted set,
// so that the copy can never be applied. p is not modified.
func RedactPlan(p *plan.Plan) *plan.Plan {
	r := *p
	r.Config = nil
	r.VariablesHash, r.SecretsHash = "", "" // digests of the secrets: kept private
	r.Objects = nil                         // digests of state records, secrets in: kept private too
	r.Redacted = true
	r.Levels = maps.Clone(p.Levels)
	r.Changes = make([]plan.Change, len(p.Changes))
	for i, c := range p.Changes {
		c.Dependencies = append([]string(nil), c.Dependencies...)
		c.References = maps.Clone(c.References)
		if c.Planned != nil {
			// A provider's planned bytes hold its sensitive values in
			// clear; what it reads back is masked where its schema says.
			c.Outputs = maskNames(c.Outputs, c.Planned.Sensitive)
			c.Planned = nil
		}
		if c.Properties != nil {
			props := make([]plan.PropChange, len(c.Properties))
			for j, pc := range c.Properties {
				if pc.Sensitive {
					pc.Old, pc.New = plan.Mask(pc.Old), plan.Mask(pc.New)
				} else {
					pc.Old, pc.New = value.Copy(pc.Old), value.Copy(pc.New)
				}
				props[j] = pc
			}
			c.Properties = props
		}
		r.Changes[i] = c
	}
	if p.Changes == nil {
		r.Changes = nil
	}
	r.OutputChanges = copyOutputs(p.OutputChanges) // masked where secret already
	r.UnchangedOutputs = copyOutputs(p.UnchangedOutputs)
	return &r
}

// copyOutputs is a deep copy of ocs.
func copyOutputs(ocs []plan.OutputChange) []plan.OutputChange {
	if ocs == nil {
		return nil
	}
	out := make([]plan.OutputChange, len(ocs))
	for i, oc := range ocs {
		oc.Old, oc.New = value.Copy(oc.Old), value.Copy(oc.New)
		out[i] = oc
	}
	return out
}

// maskNames is m with the values of names masked.
func maskNames(m map[string]any, names []string) map[string]any {
	if m == nil {
		return nil
	}
	out := value.CopyMap(m)
	for _, n := range names {
		if _, ok := out[n]; ok {
			out[n] = plan.Masked
		}
	}
	return out
}
