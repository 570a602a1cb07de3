// Package plan owns the plan: the ordered list of changes, counters, the
// plan-file encoding (versioned JSON) and the staleness check that refuses a
// saved plan whose state or config moved on. Pure; no I/O.
package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/value"
)

// Action is what a change does to a resource.
type Action int

const (
	NoOp Action = iota
	Create
	Update
	Replace
	Destroy
	Forget // gone from the cloud and from config: only dropped from state
	Move   // renamed in state (a moved entry); nothing else changes
	Import // an existing cloud object recorded in state (an import entry)
)

var actionNames = [...]string{"no-op", "create", "update", "replace", "destroy", "forget", "move", "import"}

func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return "unknown"
}

// Symbol is the one-character marker used in human output.
func (a Action) Symbol() string {
	switch a {
	case Create:
		return "+"
	case Update:
		return "~"
	case Replace:
		return "±"
	case Destroy, Forget:
		return "-"
	case Move:
		return "→"
	case Import:
		return "⇐"
	}
	return "✓"
}

func (a Action) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

func (a *Action) UnmarshalText(b []byte) error {
	for i, n := range actionNames {
		if n == string(b) {
			*a = Action(i)
			return nil
		}
	}
	return fmt.Errorf("unknown action %q", b)
}

// PropChange is one property difference. Old/New are canonical values;
// for sensitive properties they are replaced by the Masked marker in every
// rendering and in redacted plan files.
type PropChange struct {
	Path          string `json:"path"`
	Old           any    `json:"old"`
	New           any    `json:"new"`
	Sensitive     bool   `json:"sensitive,omitempty"`
	ForcesReplace bool   `json:"forcesReplace,omitempty"`
	// ReplaceReason says why the change forces a replace, as the
	// provider's rule puts it ("an ELBv2 target group's port cannot
	// change"); "" when it does not, or the provider gave no reason.
	ReplaceReason string `json:"replaceReason,omitempty"`
	Unknown       bool   `json:"unknown,omitempty"` // New is known only after apply
}

// Masked replaces sensitive values everywhere they are shown.
const Masked = "(sensitive)"

// Change is one planned change to one resource.
type Change struct {
	Action       Action       `json:"action"`
	ResourceID   string       `json:"resourceId"` // Kyku name (the seed's resourceId)
	Type         string       `json:"type"`
	Level        int          `json:"level"`
	ProviderID   string       `json:"providerId,omitempty"`
	CloudName    string       `json:"cloudName,omitempty"`
	Properties   []PropChange `json:"properties,omitempty"`
	Dependencies []string     `json:"dependencies,omitempty"`
	Reason       string       `json:"reason,omitempty"`    // e.g. "gone from the cloud", "drift"
	PriorType    string       `json:"priorType,omitempty"` // a replace that changes the type: the type to destroy
	// Outputs, on a no-op, are the outputs read from the cloud when they
	// differ from the state's (a Vm's new public IP): apply records them.
	Outputs map[string]any `json:"outputs,omitempty"`
	// MovedFrom is the name state knew the resource by (a moved entry):
	// apply renames it in state first. Action is Move when nothing else
	// changes, else the update or replace that follows the rename.
	MovedFrom string `json:"movedFrom,omitempty"`
	// PriorCloudName, on a move the provider renames in the cloud, is the
	// cloud name before it (CloudName is the new one).
	PriorCloudName string `json:"priorCloudName,omitempty"`
}

// Counters summarise a plan.
type Counters struct {
	Create  int `json:"create"`
	Update  int `json:"update"`
	Replace int `json:"replace"`
	Destroy int `json:"destroy"`
	NoOp    int `json:"noop"`
	Move    int `json:"move,omitempty"`   // changes that rename (a move, or an update or replace after one)
	Import  int `json:"import,omitempty"` // imports
}

// FormatVersion is the plan-file format this build writes and reads.
const FormatVersion = 1

// Plan is the output of planning. A saved plan embeds the resolved desired
// config so that applying it needs no checkout.
type Plan struct {
	FormatVersion int            `json:"formatVersion"`
	Environment   string         `json:"environment"`
	Provider      string         `json:"provider"`
	CreatedAt     time.Time      `json:"createdAt"`
	Changes       []Change       `json:"changes"` // ordered: by level, destroys in reverse level order after
	Counters      Counters       `json:"counters"`
	Levels        map[string]int `json:"levels,omitempty"` // every desired resource's graph level

	// What the plan was computed against; apply refuses a stale plan.
	Lineage     string `json:"lineage"`
	Serial      int64  `json:"serial"`
	Prefix      string `json:"prefix"`
	StateExists bool   `json:"stateExists"`
	ConfigHash  string `json:"configHash"`

	Destroy bool `json:"destroy,omitempty"` // a plan to destroy everything in state
	// Targets, when set, are the --target names the plan was limited to
	// (with what they depend on).
	Targets []string `json:"targets,omitempty"`

	Config   *config.Config `json:"config,omitempty"`   // the desired config (nil in a redacted plan)
	Redacted bool           `json:"redacted,omitempty"` // sensitive values masked; cannot be applied
}

// HasChanges reports whether applying p would change anything.
func (p *Plan) HasChanges() bool {
	c := p.Counters
	return c.Create+c.Update+c.Replace+c.Destroy+c.Move+c.Import > 0 || p.forgets() > 0
}

func (p *Plan) forgets() int {
	n := 0
	for _, c := range p.Changes {
		if c.Action == Forget {
			n++
		}
	}
	return n
}

// Count recomputes the counters from the changes.
func (p *Plan) Count() {
	var c Counters
	for _, ch := range p.Changes {
		switch ch.Action {
		case Create:
			c.Create++
		case Update:
			c.Update++
		case Replace:
			c.Replace++
		case Destroy:
			c.Destroy++
		case NoOp:
			c.NoOp++
		case Import:
			c.Import++
		}
		if ch.MovedFrom != "" {
			c.Move++
		}
	}
	p.Counters = c
}

// Encode returns the plan file bytes.
func Encode(p *Plan) ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode plan: %w", err)
	}
	return append(b, '\n'), nil
}

// Decode parses a plan file, refusing other format versions. name is used
// in error messages.
func Decode(name string, data []byte) (*Plan, error) {
	var probe struct {
		FormatVersion *int `json:"formatVersion"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%s: not a kyku plan file: %w", name, err)
	}
	if probe.FormatVersion == nil {
		return nil, fmt.Errorf("%s: not a kyku plan file: no formatVersion", name)
	}
	if *probe.FormatVersion != FormatVersion {
		return nil, fmt.Errorf("%s: plan format %d is not supported (this kyku reads %d)", name, *probe.FormatVersion, FormatVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: decode plan: %w", name, err)
	}
	for i := range p.Changes {
		for j := range p.Changes[i].Properties {
			pc := &p.Changes[i].Properties[j]
			pc.Old, pc.New = value.Normalize(pc.Old), value.Normalize(pc.New)
		}
	}
	if p.Config != nil {
		for i, r := range p.Config.Resources {
			if r == nil {
				return nil, fmt.Errorf("%s: decode plan: config resource %d is null", name, i)
			}
			r.Properties = value.Normalize(r.Properties).(map[string]any)
			if r.Properties == nil {
				r.Properties = map[string]any{}
			}
		}
		for i, o := range p.Config.Outputs {
			if o == nil {
				return nil, fmt.Errorf("%s: decode plan: config output %d is null", name, i)
			}
			o.Value = value.Normalize(o.Value)
		}
	}
	return &p, nil
}
