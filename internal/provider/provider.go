package provider

import (
	"context"
	"fmt"

	"github.com/kyku/action/internal/value"
)

// Provider is a cloud, or a router of several: every role, in full.
type Provider interface {
	Schemas
	Checker
	Validator
	Planner
	Applier
	Reader
	DataSources
	Lifecycle
}

// Schemas says what a provider serves, per type.
type Schemas interface {
	// Name is the provider's registry name ("sim", "aws") or, for a
	// Terraform provider, its local name.
	Name() string
	// Schema is what the provider says of typ without asking anyone.
	Schema(typ string) TypeSchema
	// OwnType is the provider's own name of typ when the configuration
	// names it otherwise (a second configuration west of a Terraform
	// provider has west_s3_bucket for its aws_s3_bucket); "" when typ is
	// it. Policies judge by the own names (plan.Plan.OwnTypes). It may
	// start a plugin.
	OwnType(ctx context.Context, typ string) (string, error)
	// WriteOnly lists the top-level properties of resource type typ that
	// are or hold a write-only attribute: their configured values go to
	// the provider and nowhere else (no state, no saved plan).
	WriteOnly(ctx context.Context, typ string) ([]string, error)
	// Empties is what each top-level attribute and nested block of
	// resource type typ holds when unset (null, an empty list of blocks),
	// as a Terraform state writes a new object's (canonical values); nil
	// when the provider cannot say without I/O (a Terraform provider not
	// started yet), or its objects are not a Terraform provider's.
	Empties(typ string) map[string]any
	// AttributeType is the type of attribute attr of typ (a data source
	// when data) read into by path, in Terraform's JSON type syntax as
	// encoding/json decodes it ("string", []any{"map", "string"}); nil
	// when the schema does not say. Outputs reading an attribute take
	// their type from it, as OpenTofu's do. attr value.AllAttrs asks for
	// the whole object's (["object", {…}], every attribute of the
	// schema): an object read whole has them all, null where state
	// leaves one out.
	AttributeType(ctx context.Context, typ string, data bool, attr string, path []value.Step) (any, error)
}

// Checker checks configured values without I/O, clock or state.
type Checker interface {
	// CheckResources refuses what the cloud's API would refuse of the
	// configured resources, all at once (a check may span resources):
	// types it lacks, value syntax and ranges, documented limits. The
	// engine calls it before planning and at `kyku validate`, and
	// positions each refusal in the configuration.
	CheckResources(rs []Desired) []Refusal
	// CheckName reports why the cloud would refuse cloudName for a new
	// object of type typ, or nil. The engine asks about every object a
	// plan creates.
	CheckName(typ, cloudName string) error
	// ValidID reports whether id can be the provider's ID of an object of
	// typ. One it cannot be (a Kyku name an early version recorded) is
	// stale: the engine finds the object by its cloud name instead.
	ValidID(typ, id string) bool
}

// Validator checks configured values by asking someone; it changes
// nothing. An error is a failure to ask, not a refusal.
type Validator interface {
	// ValidateConfigs asks the provider's plugins about rs (references
	// unresolved: unknown to them). The engine calls it at plan and
	// `kyku validate` when a type of rs has OwnState, after CheckResources
	// found nothing.
	ValidateConfigs(ctx context.Context, rs []Desired) ([]Refusal, error)
	// CheckCloud asks the cloud what it offers (the server types a
	// location sells), once per plan, after CheckResources found nothing;
	// it should cache what it reads. `kyku validate` does not call it.
	CheckCloud(ctx context.Context, rs []Desired) ([]Refusal, error)
	// CheckReads refuses, by name, those of reads (what other parts of
	// a configuration than resources read, its outputs: a value each,
	// references unresolved) that read an attribute the type of a
	// resource of rs lacks; a refusal's Resource is the read's name.
	// Called with ValidateConfigs.
	CheckReads(ctx context.Context, rs []Desired, reads map[string]any) ([]Refusal, error)
}

// Planner plans changes.
type Planner interface {
	// PlanChange plans one resource, changed or not: see ChangeRequest
	// and ChangePlan. It may read the cloud, never change it.
	PlanChange(ctx context.Context, req ChangeRequest) (ChangePlan, error)
}

// Applier changes the cloud.
type Applier interface {
	// Create creates r, or returns the existing object named r.CloudName
	// (idempotent create by name). For a type with OwnState it carries
	// out r.Planned exactly.
	Create(ctx context.Context, r Resource) (Object, error)
	// Update changes object id to r in place.
	Update(ctx context.Context, id string, r Resource) (Object, error)
	// Delete removes the object; ErrNotFound when it is already gone.
	Delete(ctx context.Context, typ, id string) error
	// DeleteStored removes an object of a type with OwnState, given what
	// state keeps of it and prior, the object as the plan read it (its
	// PriorState and PriorPrivate) when the plan has it.
	DeleteStored(ctx context.Context, typ, id string, s Stored, prior *Planned) error
	// Rename gives object id the cloud name r.CloudName (the current one
	// when TypeSchema.Renames is false) and marks it as Kyku's resource
	// r.Name, leaving everything else as it is: a moved resource keeps
	// its object.
	Rename(ctx context.Context, id string, r Resource) (Object, error)
	// KeepsAnswers says whether the creates of typ go through a journal
	// keeper that keeps each answer beside the state before the engine
	// has it (a Terraform provider's, KYKU_JOURNAL_KEEPER=1); false for
	// Kyku's own types, whose create finds its object by cloud name.
	KeepsAnswers(typ string) bool
	// Answered is the object a create of typ made, read from response,
	// the answer its journal keeper kept; an error wrapping ErrNoObject
	// when it made none. A provider that keeps no answers refuses it.
	Answered(ctx context.Context, typ string, response []byte) (Object, error)
}

// Reader reads the cloud.
type Reader interface {
	// Read returns object id of typ; ErrNotFound when it is gone.
	Read(ctx context.Context, typ, id string) (Object, error)
	// ReadStored reads an object of a type with OwnState from what state
	// keeps of it; the Object carries the provider's new form of it.
	ReadStored(ctx context.Context, typ, id string, s Stored) (Object, error)
	// ReadMany returns the objects it found among refs in a few list
	// calls; prefix is the deploy prefix (the kyku-prefix label or
	// kyku:prefix tag). A ref missing from the result is not proof that
	// the object is gone: the engine reads it with Read.
	ReadMany(ctx context.Context, prefix string, refs []Ref) (map[Ref]Object, error)
	// Lookup finds an object of Kyku's by its cloud name; ErrNotFound
	// when none.
	Lookup(ctx context.Context, typ, cloudName string) (Object, error)
	// Import finds an existing object by a user's ID (`import` entries,
	// `kyku import`); ErrNotFound when there is none.
	Import(ctx context.Context, typ, id string) (Object, error)
}

// DataSources are what the cloud offers to read, and only to read.
type DataSources interface {
	// Zones lists availability zones for auto-subnets, in a stable order.
	Zones(ctx context.Context) ([]string, error)
	// ReadData reads data source typ with its resolved configuration
	// props: every attribute (null ones left out), and the top-level
	// attributes its schema marks sensitive.
	ReadData(ctx context.Context, typ string, props map[string]any) (values map[string]any, sensitive []string, err error)
	// PlanData is what data source typ, read during apply, is known to
	// hold at plan (OpenTofu's planned unknown object): its configuration
	// (props may hold value.Unknown), value.Unknown for every attribute
	// the provider computes and props leave unset. No read.
	PlanData(ctx context.Context, typ string, props map[string]any) (values map[string]any, sensitive []string, err error)
}

// Lifecycle ends what a provider runs.
type Lifecycle interface {
	// Stop asks calls in flight to end early (an interrupted apply, as
	// Terraform does on the first Ctrl-C): they return soon with what
	// they did. The provider is then good for nothing but Close.
	Stop(ctx context.Context) error
	// Close releases what the provider holds (plugin processes, open
	// files). A router closes what it started, not the providers it was
	// given.
	Close() error
}

// Factory builds a provider from its config settings and the environment
// (injected, never read from os directly).
type Factory func(ctx context.Context, settings map[string]string, getenv func(string) string) (Provider, error)

// Registry maps provider names to factories. Build it explicitly in cmd/*.
type Registry map[string]Factory

// New builds the provider called name.
func (r Registry) New(ctx context.Context, name string, settings map[string]string, getenv func(string) string) (Provider, error) {
	f, ok := r[name]
	if !ok {
		return nil, fmt.Errorf("unknown provider %q", name)
	}
	p, err := f(ctx, settings, getenv)
	if err != nil {
		return nil, fmt.Errorf("provider %s: %w", name, err)
	}
	return p, nil
}
