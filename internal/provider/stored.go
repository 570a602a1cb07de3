package provider

import (
	"context"

	"github.com/kyku/action/internal/value"
)

// A Terraform provider (package tfprovider) plans every change itself and
// keeps its own form of each object: the state it returned, a schema
// version, private data it wants back with every later call. The engine
// keeps that form in state and in saved plans, opaque, and hands it back:
// the types below carry it, the optional interfaces below take it.

// Stored is what state keeps of one object for a provider that needs it
// back with every call: the version of the type's schema its values were
// written with, the provider's private data, and its attribute values
// (state.Resource.Outputs: every attribute of the object, null ones left
// out). Value, when set, is the provider's own exact form of the same
// values as it last read them (within one run; never persisted).
type Stored struct {
	SchemaVersion int64
	Private       []byte
	Attributes    map[string]any
	Value         any
	// Sensitive (from the provider) lists the top-level attributes its
	// schema marks sensitive (or that hold such a value).
	Sensitive []string
}

// Planned is a provider's own plan of one change (a Terraform provider's
// PlanResourceChange): what apply will produce and what apply must hand
// back to make exactly that change. The engine shows PriorValues against
// Values (value.Unknown where a value is known only after apply), keeps
// the rest opaque in the plan, and apply sends it back unchanged.
type Planned struct {
	// PriorValues are the object's attribute values before the change (as
	// read from the cloud at plan time); nil for a create.
	PriorValues map[string]any
	// Values are the planned attribute values; nil for a destroy.
	Values map[string]any
	// Sensitive lists the top-level attributes that are or hold a value
	// the provider's schema marks sensitive: masked wherever shown.
	Sensitive []string
	// PriorState and PriorPrivate are the object before the change (what
	// a destroy, or the destroy half of a replace, hands back); nil for a
	// create.
	PriorState, PriorPrivate []byte
	// State and Private are the planned state and private data, exactly
	// as the provider returned them.
	State, Private []byte
	// SchemaVersion is the version of the type's schema the states are
	// encoded with.
	SchemaVersion int64
	// ConfigKnown says that the configuration was wholly known when
	// planned: apply sends State as it is. Otherwise apply plans again
	// with the configuration it resolved and refuses a result that
	// contradicts a known value of State.
	ConfigKnown bool
}

// StoredReader is implemented by providers whose reads need what state
// keeps of an object (a Terraform provider's ReadResource, after
// UpgradeResourceState). The engine calls it instead of Read for every
// object state holds; the Object it returns carries the provider's new
// form of it (Object.Stored). ErrNotFound when the object is gone.
type StoredReader interface {
	ReadStored(ctx context.Context, typ, id string, s Stored) (Object, error)
}

// StoredDeleter is implemented by providers whose deletes need what state
// (or the plan) keeps of the object; the engine calls it instead of
// Delete. prior is the object as the plan read it, its Planned.PriorState
// and PriorPrivate when the plan has them.
type StoredDeleter interface {
	DeleteStored(ctx context.Context, typ, id string, s Stored, prior *Planned) error
}

// Importer is implemented by providers that find an existing object by a
// user's ID themselves (a Terraform provider's ImportResourceState, then
// ReadResource): what `import` entries and `kyku import` call instead of
// Read. ErrNotFound when there is no such object.
type Importer interface {
	Import(ctx context.Context, typ, id string) (Object, error)
}

// DataReader is implemented by providers with data sources (a Terraform
// provider's ReadDataSource): read-only lookups whose attribute values
// resources reference. ReadData reads one: props are the resolved
// configuration (no unknown values); the result is every attribute, null
// ones left out, and the top-level attributes its schema marks
// sensitive. PlanData is what a data source read during apply is known
// to hold at plan (OpenTofu's planned unknown object): its configuration
// (props may hold value.Unknown), value.Unknown for every attribute the
// provider computes and props leave unset; no read.
type DataReader interface {
	ReadData(ctx context.Context, typ string, props map[string]any) (values map[string]any, sensitive []string, err error)
	PlanData(ctx context.Context, typ string, props map[string]any) (values map[string]any, sensitive []string, err error)
}

// AttributeTyper is implemented by providers whose types declare the
// types of their attributes (a Terraform provider's schema).
// AttributeType is the type of attribute attr of typ (a data source when
// data), read into by path, in Terraform's JSON type syntax as
// encoding/json decodes it ("string", []any{"map", "string"}); nil when
// the schema does not say (a dynamic attribute, a path it does not
// declare). Outputs reading an attribute take its type from it, as
// OpenTofu's do.
type AttributeTyper interface {
	AttributeType(ctx context.Context, typ string, data bool, attr string, path []value.Step) (any, error)
}

// ConfigValidator is implemented by providers that check configured
// values by asking their plugin (a Terraform provider's
// ValidateProviderConfig and ValidateResourceConfig): no cloud call, but
// I/O. The engine calls it at plan and `kyku validate`, after
// ResourceChecker found nothing, with every resource (references
// unresolved: their values are unknown to the provider).
type ConfigValidator interface {
	ValidateConfigs(ctx context.Context, rs []Desired) ([]Refusal, error)
}

// WriteOnlyLister is implemented by providers whose resource types may
// have write-only attributes (a Terraform provider's): the configured
// value goes to the provider and nowhere else. WriteOnly lists the
// top-level properties of typ that are or hold one; Kyku keeps none of
// their configured values (state, a saved plan).
type WriteOnlyLister interface {
	WriteOnly(ctx context.Context, typ string) ([]string, error)
}

// SelfPlanner is implemented by providers (and routers of several) that
// say which types plan every change themselves and keep their own state:
// the engine plans those through ChangePlanner alone (no Kyku schema, no
// replace rules), reads them with StoredReader, deletes them with
// StoredDeleter, and skips the lookups by cloud name Kyku's own types
// have.
type SelfPlanner interface {
	SelfPlanned(typ string) bool
}

// TypeNamer is implemented by providers (and routers of several) that
// serve types under names the configuration chose: a second configuration
// of a Terraform provider, west, has west_s3_bucket for the provider's
// aws_s3_bucket. OwnType is the provider's own name of typ, "" when typ
// is it. Policies judge by the own names (plan.Plan.OwnTypes), so that a
// configuration cannot rename a type out of a rule's reach. ProviderOf
// names the provider that owns typ (plan.Change.Provider): a Terraform
// provider's local name (west), or the provider of Kyku's own types.
type TypeNamer interface {
	OwnType(ctx context.Context, typ string) (string, error)
	ProviderOf(typ string) string
}

// PartialError is a create or update that failed after the cloud object
// came to exist (a Terraform provider's ApplyResourceChange answering a
// new state with its error): the engine records Object in state, so the
// next run sees it, and reports the change failed.
type PartialError struct {
	Object Object
	Err    error
}

func (e *PartialError) Error() string { return e.Err.Error() }
func (e *PartialError) Unwrap() error { return e.Err }

// Stopper is implemented by providers whose calls can be asked to end
// early (a Terraform provider's StopProvider): the engine calls it when an
// apply is interrupted, as Terraform does on the first Ctrl-C. Calls in
// flight then return soon with what they did (which state keeps); the
// provider remains usable for nothing but closing.
type Stopper interface {
	Stop(ctx context.Context) error
}
