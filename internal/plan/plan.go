// Package plan owns the plan: the ordered list of changes, counters, the
// plan-file encoding (versioned JSON that verifies itself: see Encode and
// Decode) and the changes digest that says what a plan does (see
// ChangesDigest). Pure; no I/O.
package plan

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/state"
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
	// Read is a data source read during apply, not at plan: its
	// configuration refers to values not yet known, or it depends on a
	// resource with changes pending (OpenTofu's read action). Nothing in
	// the cloud changes; what reads it is planned with its values unknown.
	Read
)

var actionNames = [...]string{"no-op", "create", "update", "replace", "destroy", "forget", "move", "import", "read"}

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
	case Read:
		return "<="
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
	// Within, on a Sensitive property secret only in parts, lists the
	// paths of those parts inside Old and New (value.Ref's Path syntax,
	// relative to Path): what is shown masks them alone. Package render
	// sets it from Change.SensitiveWithin for what it shows; never saved.
	Within []string `json:"-"`
}

// Masked replaces sensitive values everywhere they are shown.
const Masked = "(sensitive)"

// Mask is v as a secret is shown: Masked, or nil when v is null (there
// is no secret in nothing: a create's old value, a destroy's new one).
func Mask(v any) any {
	if v == nil {
		return nil
	}
	return Masked
}

// ReplaceOrder is the order apply carries a replace out in.
type ReplaceOrder string

const (
	// DestroyBeforeCreate destroys the object, then creates its
	// replacement under the same cloud name (the default).
	DestroyBeforeCreate ReplaceOrder = "destroy-before-create"
	// CreateBeforeDestroy creates the replacement first (under another
	// cloud name), updates the resources that stay and used the object so
	// that they use the replacement, then destroys the object: for an
	// object the cloud does not delete while it is used (a firewall
	// applied to servers), or a provider asking for it.
	CreateBeforeDestroy ReplaceOrder = "create-before-destroy"
	// ForgetThenCreate drops the object from state, leaving it in the
	// cloud, then creates its replacement: a resource whose lifecycle
	// says destroy = false (OpenTofu 1.12's ForgetThenCreate).
	ForgetThenCreate ReplaceOrder = "forget-then-create"
)

func (o ReplaceOrder) String() string { return string(o) }

// DeposedName is the state name of name's object a create-before-destroy
// replace keeps until it is destroyed (state.DeposedName).
func DeposedName(name string) string { return state.DeposedName(name) }

// DeposedOf is the resource a deposed object's state name belongs to.
func DeposedOf(name string) (string, bool) { return state.DeposedOf(name) }

// Change is one planned change to one resource.
type Change struct {
	Action     Action `json:"action"`
	ResourceID string `json:"resourceId"` // Kyku name (the seed's resourceId)
	Type       string `json:"type"`
	// Provider names the provider that owns Type: a Terraform provider's
	// local name (the providers: key, the type's prefix), or Kyku's
	// provider of its own types (sim, aws, hetzner).
	Provider     string       `json:"provider,omitempty"`
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
	// ImportID, on an import, is the ID its import entry gives, as
	// written: what the provider read the object by. ProviderID is the
	// object's own ID, which may differ (a Terraform provider's composite
	// import ID, or random_password's: the password, its ID "none").
	ImportID string `json:"importId,omitempty"`
	// Imported, on an import, is the object the plan read by ImportID:
	// what apply records in state, without reading again. Kept in memory
	// only: apply of a saved plan plans again and records what that read.
	Imported *Object `json:"-"`
	// MovedFrom is the name state knew the resource by (a moved entry):
	// apply renames it in state first. Action is Move when nothing else
	// changes, else the update or replace that follows the rename.
	MovedFrom string `json:"movedFrom,omitempty"`
	// PriorCloudName, on a move the provider renames in the cloud, is the
	// cloud name before it (CloudName is the new one); on a
	// create-before-destroy replace, the cloud name of the object
	// destroyed (CloudName is its replacement's).
	PriorCloudName string `json:"priorCloudName,omitempty"`
	// ReplaceOrder, on a replace, is how apply carries it out.
	ReplaceOrder ReplaceOrder `json:"replaceOrder,omitempty"`
	// Planned, for a resource of a provider that plans every change itself
	// (a Terraform provider), is that provider's plan, which apply carries
	// out exactly; on a no-op, the object as the plan read it.
	Planned *Planned `json:"planned,omitempty"`
	// Sensitive are the resource's top-level properties (a provider's
	// resource: attributes) whose value is secret as configured now: read
	// from a sensitive variable or a sensitive attribute, or marked so by
	// the provider's schema. Apply records them in state, so that what was
	// secret stays masked after the configuration stops saying so.
	Sensitive []string `json:"sensitive,omitempty"`
	// SensitiveWithin, for a property of Sensitive that only the
	// configuration makes secret, and only in parts (a sensitive variable
	// set inside an object), lists the paths inside it whose values are
	// secret (value.Ref's Path syntax, `.password`): the planned value
	// masks only those, as OpenTofu's plan does. Properties still mask
	// the property whole, and so do references to it.
	SensitiveWithin map[string][]string `json:"sensitiveWithin,omitempty"`
	// SecretParts, for a property of Sensitive that the configuration
	// makes secret only in parts, lists those parts (as SensitiveWithin
	// does), also where the plan shows it masked whole because state
	// recorded it secret whole: what apply records in state
	// (state.Resource.SensitiveWithin) once the property's value changed.
	SecretParts map[string][]string `json:"secretParts,omitempty"`
	// References are, by property path as Properties name them
	// ("network", "securityGroups[0]", "tags.env"), the references the
	// configuration wrote there ("main-vpc", "vpc.id"; several joined by
	// ", "), each where the planned value is what it resolved to: a plan
	// shows them beside the values. None under a sensitive property.
	References map[string]string `json:"references,omitempty"`
	// NotRead says the plan took the resource from state, neither read
	// from the cloud nor planned by its provider: nothing it is planned
	// from changed since its last apply (Basis). LastRead is when its
	// object was last read. See reads.go.
	NotRead  bool       `json:"notRead,omitempty"`
	LastRead *time.Time `json:"lastRead,omitempty"`
	// Basis is what the resource is planned from, in digests; apply
	// records it in state.
	Basis *state.Basis `json:"basis,omitempty"`
	// PriorDigests are, by top-level attribute, digests of the object
	// as the plan read it (or took it from state): apply reads it again
	// just before changing it and refuses when one differs.
	PriorDigests map[string]string `json:"priorDigests,omitempty"`
}

// Object is a cloud object as a plan read it (an import's): its IDs, its
// properties and outputs, and, for a Terraform provider's, the schema
// version, private data and sensitive attributes its provider gave.
type Object struct {
	ID, CloudName       string
	Properties, Outputs map[string]any
	SchemaVersion       int64
	Private             []byte
	Sensitive           []string
}

// SensitiveAttributes are, per resource, the top-level properties or
// attributes its change says are secret (Change.Sensitive, and what a
// provider's plan marks): what a reference to them must never show.
func (p *Plan) SensitiveAttributes() map[string][]string {
	out := map[string][]string{}
	for _, c := range p.Changes {
		names := c.Sensitive
		if c.Planned != nil {
			names = append(slices.Clone(names), c.Planned.Sensitive...)
		}
		if len(names) > 0 {
			out[c.ResourceID] = names
		}
	}
	return out
}

// Planned is a provider's own plan of one change (provider.Planned as a
// plan keeps it): the states and private data exactly as the provider
// returned them, opaque to Kyku. Properties show its values; these bytes
// are what apply hands back. A redacted plan leaves them out (they hold
// the sensitive values in clear).
type Planned struct {
	PriorState    []byte `json:"priorState,omitempty"`
	PriorPrivate  []byte `json:"priorPrivate,omitempty"`
	State         []byte `json:"state,omitempty"`
	Private       []byte `json:"private,omitempty"`
	SchemaVersion int64  `json:"schemaVersion,omitempty"`
	// ConfigKnown: the configuration was wholly known at plan time; apply
	// sends State unchanged (otherwise it plans again with the values it
	// resolved, and refuses a result contradicting State).
	ConfigKnown bool `json:"configKnown,omitempty"`
	// Sensitive lists the top-level attributes the provider's schema marks
	// sensitive (or that hold such a value): masked wherever shown.
	Sensitive []string `json:"sensitive,omitempty"`
	// Values are the planned attribute values, for the references of the
	// changes after it; kept in memory only (Properties show them).
	Values map[string]any `json:"-"`
}

// Same reports whether a and b hand the provider the same bytes.
func (a *Planned) Same(b *Planned) bool {
	if a == nil || b == nil {
		return a == b
	}
	return bytes.Equal(a.PriorState, b.PriorState) && bytes.Equal(a.PriorPrivate, b.PriorPrivate) &&
		bytes.Equal(a.State, b.State) && bytes.Equal(a.Private, b.Private) &&
		a.SchemaVersion == b.SchemaVersion && a.ConfigKnown == b.ConfigKnown
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
	Read    int `json:"read,omitempty"`   // data sources read during apply
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

	// Warnings are what the plan reports without refusing: a Terraform
	// configuration's check block assertions that fail
	// ("main.tf:3:5: Check block assertion failed: …"), as OpenTofu
	// reports them.
	Warnings []string `json:"warnings,omitempty"`

	// What the plan was computed against; apply refuses a stale plan.
	Lineage     string `json:"lineage"`
	Serial      int64  `json:"serial"`
	Prefix      string `json:"prefix"`
	StateExists bool   `json:"stateExists"`
	// Objects are, when the state's objects are leased one by one (not
	// the whole state locked), the version (lease.Digest; "" for absent)
	// of each object the plan changes or reads from, in the state planned
	// against: the plan goes stale only when one of them changed, not
	// when the serial moved on.
	Objects map[string]string `json:"objects,omitempty"`
	// ConfigHash is config.Config.Hash of the configuration planned (its
	// secrets left out: it is published).
	ConfigHash string `json:"configHash"`
	// VariablesHash is config.Config.VariablesHash of the configuration
	// planned: the variables' values it was expanded with. SecretsHash is
	// its config.Config.SecretsHash, the hash with the secrets in. Both
	// are digests of secrets: a redacted plan has neither.
	VariablesHash string `json:"variablesHash,omitempty"`
	SecretsHash   string `json:"secretsHash,omitempty"`
	// Backend is where the state planned against lives, as the backend
	// describes itself ("local /work/infra/.kyku-state/state.prod.json"): a
	// saved plan is applied only to that state.
	Backend string `json:"backend,omitempty"`

	Destroy bool `json:"destroy,omitempty"` // a plan to destroy everything in state
	// Targets, when set, are the --target names the plan was limited to
	// (with what they depend on).
	Targets []string `json:"targets,omitempty"`
	// Exclude, when set, are the --exclude names the plan left out (with
	// what depends on them).
	Exclude []string `json:"exclude,omitempty"`
	// Replace, when set, are the --replace names the plan replaces
	// whatever changed.
	Replace []string `json:"replace,omitempty"`
	// ForgetInterrupted, when set, are the addresses (sorted) whose
	// interrupted creates' intents the apply drops, first of its changes
	// (--forget-interrupted: no object was made there).
	ForgetInterrupted []string `json:"forgetInterrupted,omitempty"`
	// OwnTypes are the provider's own names of the types of the plan's
	// changes and configuration that a configuration names otherwise (a
	// second configuration of a Terraform provider: west_s3_bucket →
	// aws_s3_bucket; provider.Schemas.OwnType). Policies judge by them.
	OwnTypes map[string]string `json:"ownTypes,omitempty"`

	// OutputChanges are the outputs applying the plan adds, changes or
	// removes, by name (values masked where secret); shown, not applied:
	// apply evaluates the outputs again.
	OutputChanges []OutputChange `json:"outputChanges,omitempty"`
	// UnchangedOutputs are the configuration's outputs the plan leaves as
	// they are (action no-op), by name, masked as OutputChanges are: what
	// plan --json lists beside the changes, as OpenTofu's plan does.
	UnchangedOutputs []OutputChange `json:"unchangedOutputs,omitempty"`
	// KeptOutputs are the outputs a --target or --exclude plan leaves as
	// they are in state, sorted: they read resources it does not cover,
	// so it neither shows nor applies a change to them, as OpenTofu's.
	KeptOutputs []string `json:"keptOutputs,omitempty"`

	Config *config.Config `json:"config,omitempty"` // the desired config (nil in a redacted plan)
	// WriteOnly lists, per resource, the top-level properties the
	// configuration sets that are or hold a write-only attribute (its
	// provider's schema says so): their values go to the provider and are
	// kept nowhere; a plan file leaves them out of Config (writeonly.go).
	WriteOnly map[string][]string `json:"writeOnly,omitempty"`
	// Data are the attribute values of the data sources the plan read, by
	// name, for the references apply resolves; for one read during apply
	// (a Read change), what is known of them at plan, value.Unknown where
	// only the read will tell. In memory only (applying a saved plan plans
	// it again, which reads them again).
	Data map[string]map[string]any `json:"-"`
	// Secrets are the values state holds as secret (state.Resource
	// Sensitive) of the objects the plan destroys or replaces: what an
	// error about them may quote and every front door scrubs. In memory
	// only (applying a saved plan plans it again).
	Secrets  []string `json:"-"`
	Redacted bool     `json:"redacted,omitempty"` // sensitive values masked; cannot be applied
	// Reads say how much of the state the plan read (reads.go).
	Reads *Reads `json:"reads,omitempty"`
}

// DestroysAll reports whether p destroys every resource in state because
// its configuration has none (an empty or truncated configuration): a plan
// that is made and applied only when asked for explicitly. A destroy plan
// (kyku destroy) and a targeted plan are asked for by their nature and do
// not count; a redacted plan (no configuration) cannot tell.
func (p *Plan) DestroysAll() bool {
	if p.Destroy || p.Config == nil || len(p.Config.Resources) > 0 || len(p.Targets) > 0 || len(p.Exclude) > 0 {
		return false
	}
	for _, c := range p.Changes {
		if c.Action == Destroy {
			return true
		}
	}
	return false
}

// HasChanges reports whether applying p would do anything: change the
// cloud or state, or read a data source during apply (as OpenTofu counts
// a read; one is only planned beside the changes it waits for).
func (p *Plan) HasChanges() bool {
	c := p.Counters
	return c.Create+c.Update+c.Replace+c.Destroy+c.Move+c.Import+c.Read > 0 || p.forgets() > 0 || len(p.ForgetInterrupted) > 0
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
		case Read:
			c.Read++
		}
		if ch.MovedFrom != "" {
			c.Move++
		}
	}
	p.Counters = c
}
