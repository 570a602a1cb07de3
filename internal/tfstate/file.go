package tfstate

import (
	"encoding/json"
	"errors"
)

// FormatVersion is the only state format version this package reads and
// writes.
const FormatVersion = 4

// WriterVersion is the terraform_version of a state this package creates:
// the OpenTofu release whose format it follows. A state read keeps the
// version it was read with.
const WriterVersion = "1.12.6"

// ErrEmpty is returned by Decode for empty data: OpenTofu's "no state"
// (its local backend leaves an empty file behind a lock it took).
var ErrEmpty = errors.New("empty state file")

// ErrEncrypted is wrapped by Decode for a state sealed by OpenTofu's own
// state encryption, which Kyku does not read.
var ErrEncrypted = errors.New("state is encrypted with OpenTofu's state encryption")

// File is a whole state in format version 4.
type File struct {
	TerraformVersion string
	Serial           uint64
	Lineage          string
	// Outputs are the root module's outputs by name.
	Outputs   map[string]*Output
	Resources []*Resource
	// CheckResults are the check results of the last run that recorded
	// them, in the order it wrote them; none is written as null.
	CheckResults []*CheckResult
}

// Output is one root module output. Value and Type are JSON as OpenTofu
// writes them (compact: the value in the type's JSON form, the type in
// Terraform's type syntax, ["map","string"]).
type Output struct {
	Value      json.RawMessage
	Type       json.RawMessage
	Sensitive  bool
	Deprecated string
}

// Mode is a resource's mode.
type Mode uint8

const (
	Managed Mode = iota + 1
	Data
)

// String is the mode as state writes it.
func (m Mode) String() string {
	switch m {
	case Managed:
		return "managed"
	case Data:
		return "data"
	}
	return "invalid"
}

// Resource is one resource block's instances in one module instance.
type Resource struct {
	Module string // "" for the root module, else module.a["k"].module.b
	Mode   Mode
	Type   string
	Name   string
	// Provider is the provider configuration's address; "" when each
	// instance names its own provider instance (a provider with for_each).
	Provider  string
	Instances []*Instance
}

// Instance is one object of a resource instance: its current object
// (Deposed "") or one deposed by a create_before_destroy replacement.
type Instance struct {
	Key     Key
	Status  string // "" or "tainted"
	Deposed string // "" for the current object, else an 8-character key
	// Provider is the provider instance's address when the resource's
	// Provider is "".
	Provider      string
	SchemaVersion uint64
	// Attributes is the object's JSON, compact, as the provider returned
	// it (nil for a state that only has AttributesFlat).
	Attributes     json.RawMessage
	AttributesFlat map[string]string // Terraform 0.11's flat form
	// Sensitive are the paths of the values that were sensitive.
	Sensitive           []Path
	Private             []byte
	Dependencies        []string
	CreateBeforeDestroy bool
	SkipDestroy         bool
	// Identity and IdentitySchemaVersion are the provider's resource
	// identity, when it has one.
	Identity              json.RawMessage
	IdentitySchemaVersion *uint64
}

// CheckResult is the result of one checkable object of the configuration
// (a resource, an output, a check block, a variable) and of its instances.
type CheckResult struct {
	Kind    string // resource, output, check, var
	Addr    string // its configuration address
	Status  string // pass, fail, error, unknown
	Objects []CheckObject
}

// CheckObject is the result of one instance of a checkable object.
type CheckObject struct {
	Addr            string
	Status          string
	FailureMessages []string
}

// Addr is the resource's address without an instance key:
// module.a["k"].null_resource.x, data.local_file.f.
func (r *Resource) Addr() string {
	s := r.Type + "." + r.Name
	if r.Mode == Data {
		s = "data." + s
	}
	if r.Module != "" {
		s = r.Module + "." + s
	}
	return s
}

// InstanceAddr is the address of the resource's instance with key k:
// module.a.null_resource.x["k"].
func (r *Resource) InstanceAddr(k Key) string { return r.Addr() + k.String() }
