package kyku

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/graph"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/value"
)

// Action is what a change does to a resource.
type Action string

// The actions of a plan (the seed's change types, and forget: a resource
// gone from both the cloud and the config, only dropped from state).
const (
	NoOp    Action = "no-op"
	Create  Action = "create"
	Update  Action = "update"
	Replace Action = "replace"
	Destroy Action = "destroy"
	Forget  Action = "forget"
	Move    Action = "move"   // renamed in state (a moved entry); nothing else changes
	Import  Action = "import" // an existing cloud object recorded in state (an import entry)
	// Read is a data source read during apply, after the changes it
	// depends on (its configuration refers to values not yet known, or it
	// depends on a resource with changes pending); nothing changes.
	Read Action = "read"
)

func (a Action) String() string { return string(a) }

// Masked stands for a sensitive value in every public result.
const Masked = "(sensitive)"

// Plan is the ordered list of changes that would make the cloud match a
// configuration: by graph level, destroys after in reverse level order.
// Apply applies it exactly as computed (editing its fields changes
// nothing). It round-trips through encoding/json as the plan file `kyku
// plan --out` writes, which holds the resolved configuration, sensitive
// values included: store it as you would the state.
type Plan struct {
	Changes     []Change
	Counters    Counters
	Graph       *Graph // the dependency graph of the configuration planned
	Environment string
	Prefix      string // the deploy prefix new resources are named with
	Destroy     bool   // a plan to destroy everything in state

	p *plan.Plan
}

// Change is one planned change to one resource.
type Change struct {
	Action     Action
	ResourceID string // the Kyku name
	Type       string
	Level      int
	ProviderID string // the cloud's ID, when the resource exists
	CloudName  string
	Reason     string // e.g. "gone from the cloud"
	MovedFrom  string // the name state knew the resource by (a moved entry)
	// ReplaceOrder, on a replace: "destroy-before-create", or
	// "create-before-destroy" (the replacement made first under CloudName,
	// what uses the object moved to it, then the object, PriorCloudName,
	// destroyed).
	ReplaceOrder   string
	PriorCloudName string // on a move that renames, or a create-before-destroy replace: the cloud name before
	Properties     []PropertyChange
	Dependencies   []string
}

// PropertyChange is one property difference. Sensitive values are Masked.
type PropertyChange struct {
	Path          string // e.g. "ingress[0].port"
	Old, New      any    // nil, bool, float64, string, []any or map[string]any
	Sensitive     bool
	ForcesReplace bool   // the provider cannot change it in place: the change replaces the resource
	ReplaceReason string // why, as the provider says it ("an ELBv2 target group's port cannot change")
	Unknown       bool   // New is known only after apply
}

// Counters summarise a plan.
type Counters struct {
	Create, Update, Replace, Destroy, NoOp int
	Move                                   int // changes that rename (a move, or an update or replace after one)
	Import                                 int // imports
	Read                                   int // data sources read during apply
}

// HasChanges reports whether applying the plan would change the cloud.
func (p *Plan) HasChanges() bool { return p.p != nil && p.p.HasChanges() }

// String is the plan in the seed's human format (no colour, no-ops listed).
func (p *Plan) String() string {
	if p.p == nil {
		return ""
	}
	var b bytes.Buffer
	_ = render.PlanText(&b, p.p, render.TextOptions{ShowNoOp: true})
	return b.String()
}

// MarshalJSON encodes the plan file.
func (p *Plan) MarshalJSON() ([]byte, error) {
	if p.p == nil {
		return []byte("null"), nil
	}
	return plan.Encode(p.p)
}

// UnmarshalJSON decodes a plan file (refusing other format versions).
func (p *Plan) UnmarshalJSON(data []byte) error {
	ip, err := plan.Decode("plan", data)
	if err != nil {
		return err
	}
	*p = *publicPlan(ip)
	return nil
}

func publicPlan(ip *plan.Plan) *Plan {
	p := &Plan{
		Environment: ip.Environment, Prefix: ip.Prefix, Destroy: ip.Destroy, p: ip,
		Counters: Counters{Create: ip.Counters.Create, Update: ip.Counters.Update, Replace: ip.Counters.Replace,
			Destroy: ip.Counters.Destroy, NoOp: ip.Counters.NoOp, Move: ip.Counters.Move, Import: ip.Counters.Import, Read: ip.Counters.Read},
		Changes: make([]Change, len(ip.Changes)),
	}
	for i, c := range ip.Changes {
		p.Changes[i] = Change{
			Action: Action(c.Action.String()), ResourceID: c.ResourceID, Type: c.Type, Level: c.Level,
			ProviderID: c.ProviderID, CloudName: c.CloudName, Reason: c.Reason, MovedFrom: c.MovedFrom,
			ReplaceOrder: string(c.ReplaceOrder), PriorCloudName: c.PriorCloudName,
			Properties: publicProps(c.Properties), Dependencies: append([]string(nil), c.Dependencies...),
		}
	}
	if ip.Config != nil {
		p.Graph = publicGraph(ip.Config, config.BuildGraph(ip.Config), ip.Levels)
	}
	return p
}

func publicProps(pcs []plan.PropChange) []PropertyChange {
	if len(pcs) == 0 {
		return nil
	}
	out := make([]PropertyChange, len(pcs))
	for i, pc := range pcs {
		out[i] = PropertyChange{Path: pc.Path, Old: value.Copy(pc.Old), New: value.Copy(pc.New),
			Sensitive: pc.Sensitive, ForcesReplace: pc.ForcesReplace, ReplaceReason: pc.ReplaceReason, Unknown: pc.Unknown}
		if pc.Sensitive {
			if pc.Old != nil {
				out[i].Old = Masked
			}
			if pc.New != nil {
				out[i].New = Masked
			}
		}
	}
	return out
}

// Graph is a configuration's dependency graph.
type Graph struct {
	Nodes []GraphNode // by level, then name
}

// GraphNode is one resource of a Graph.
type GraphNode struct {
	Name      string
	Type      string
	Level     int      // 0 without dependencies, else 1 + the highest level of its dependencies
	DependsOn []string // sorted
}

// Levels groups the node names by level: the changes of one level may run
// in parallel once the lower levels are done.
func (g *Graph) Levels() [][]string {
	var out [][]string
	for _, n := range g.Nodes {
		for len(out) <= n.Level {
			out = append(out, nil)
		}
		out[n.Level] = append(out[n.Level], n.Name)
	}
	return out
}

func publicGraph(cfg *config.Config, g *graph.Graph, levels map[string]int) *Graph {
	out := &Graph{Nodes: make([]GraphNode, 0, len(cfg.Resources))}
	for _, r := range cfg.Resources {
		out.Nodes = append(out.Nodes, GraphNode{Name: r.Name, Type: r.Type, Level: levels[r.Name], DependsOn: g.Deps(r.Name)})
	}
	sort.SliceStable(out.Nodes, func(i, j int) bool {
		a, b := out.Nodes[i], out.Nodes[j]
		if a.Level != b.Level {
			return a.Level < b.Level
		}
		return a.Name < b.Name
	})
	return out
}

var _ json.Marshaler = (*Plan)(nil)
