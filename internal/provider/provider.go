// Package provider owns the contract between the engine and a cloud: the
// Provider interface, the objects it returns, its typed errors, and an
// explicit registry of implementations (no init()). Implementations live in
// sub-packages (sim, aws, hetzner) and must be safe for concurrent use.
//
// Besides Provider, a provider may take part in planning through small
// optional interfaces the engine type-asserts: ResourceChecker (pure checks
// of configured values, at plan and `kyku validate`), CloudChecker (checks
// that ask the cloud, once per plan), ReplaceRules (per type and property:
// in place or replace, and why), ChangePlanner (value-aware replaces and
// refusals per planned change), NameChecker, Renamer and BulkReader. A
// provider that plans every change itself and keeps its own form of each
// object (a Terraform provider, package tfprovider) is a SelfPlanner for
// its types: ChangePlanner answers with its plan (Planned), which apply
// hands back exactly; StoredReader, StoredDeleter, Importer, DataReader,
// ConfigValidator and Stopper take what state keeps of its objects
// (Stored); AttributeTyper says the types of its attributes.
package provider

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNotFound is returned (wrapped) when a cloud object does not exist.
var ErrNotFound = errors.New("not found")

// Resource is what the engine asks a provider to create or update: the
// desired properties with every reference already resolved to provider IDs
// or output values. Name is the Kyku name; never send it where the cloud
// wants an ID.
type Resource struct {
	Name       string         // Kyku name, e.g. "web"
	Type       string         // Kyku type, e.g. "Vm"
	CloudName  string         // name in the cloud, "<prefix>-<name>" for new resources
	Prefix     string         // deploy prefix (tagging)
	Properties map[string]any // canonical values (package value)
	// Planned, for a provider that plans every change itself, is its plan
	// of this change (ChangePlan.Planned as the plan carries it): Create
	// and Update carry out exactly that. Stored is the object before an
	// update. Both nil for Kyku's own providers.
	Planned *Planned
	Stored  *Stored
}

// Object is a cloud object as the provider sees it.
type Object struct {
	ID         string         // provider-native, opaque (e.g. "12224210", "vpc-0abc123")
	CloudName  string         // its name in the cloud
	Properties map[string]any // Kyku property vocabulary; references as provider IDs
	Outputs    map[string]any // at least "id"
	// Stored is the provider's own form of the object, for a provider
	// that keeps one (see Stored); nil for Kyku's own providers.
	Stored *Stored
}

// Provider is a cloud. Every call takes a context and may be retried by the
// engine when the error is transient (see Transient).
type Provider interface {
	// Name is the provider's registry name ("sim", "aws").
	Name() string
	// Zones lists availability zones for auto-subnets, in a stable order.
	Zones(ctx context.Context) ([]string, error)
	// Create creates r, or returns the existing object with r.CloudName
	// (idempotent create by name).
	Create(ctx context.Context, r Resource) (Object, error)
	// Read returns the object; ErrNotFound when it is gone.
	Read(ctx context.Context, typ, id string) (Object, error)
	// Update changes mutable properties in place.
	Update(ctx context.Context, id string, r Resource) (Object, error)
	// Delete removes the object; ErrNotFound when it is already gone.
	Delete(ctx context.Context, typ, id string) error
	// Lookup finds an object by its cloud name; ErrNotFound when none.
	Lookup(ctx context.Context, typ, cloudName string) (Object, error)
}

// TransientError marks an error worth retrying (throttling, 5xx, eventual
// consistency). RetryAfter, when set, is the server's hint.
type TransientError struct {
	Err        error
	RetryAfter time.Duration
}

func (e *TransientError) Error() string { return "transient: " + e.Err.Error() }
func (e *TransientError) Unwrap() error { return e.Err }

// Transient wraps err as retryable.
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return &TransientError{Err: err}
}

// IsTransient reports whether err (or anything it wraps) is retryable.
func IsTransient(err error) bool {
	var t *TransientError
	return errors.As(err, &t)
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
