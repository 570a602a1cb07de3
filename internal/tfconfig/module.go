package tfconfig

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/zclconf/go-cty/cty"
)

// Module is one module's directory as written: its blocks decoded, no
// value evaluated. Maps are keyed by name (resources by "type.name",
// data sources by "data.type.name").
type Module struct {
	Dir   string   // as given to Load, joined with the call's source for a child
	Files []string // the files read, override files last

	RequiredProviders map[string]*RequiredProvider
	Backend           *Backend
	Providers         map[string]*ProviderBlock // "name" or "name.alias"
	Variables         map[string]*Variable
	Locals            map[string]*Local
	Outputs           map[string]*Output
	Resources         map[string]*Resource
	Calls             map[string]*Call
	Moved             []*Moved
	Imports           []*Import
	Removed           []*Removed
	Checks            map[string]*Check
	// FunctionCalls are the calls of providers' functions in its files
	// (providerfuncs.go).
	FunctionCalls []FunctionCall

	// Children are the modules Calls load, by call name.
	Children map[string]*Module

	files map[string]*hcl.File // the root's: every file of the tree, for diagnostics
	// loadWarnings are the warnings of reading the files (the root's:
	// the whole tree's), said with the expansion's.
	loadWarnings hcl.Diagnostics
}

// RequiredProvider is one entry of required_providers.
type RequiredProvider struct {
	Name, Source, Version string
	Aliases               []string // configuration_aliases, as "name.alias"
	Range                 hcl.Range
}

// Backend is the terraform block's backend.
type Backend struct {
	Type      string
	Body      hcl.Body
	DeclRange hcl.Range
	TypeRange hcl.Range
}

// ProviderBlock is a provider configuration.
type ProviderBlock struct {
	Name, Alias string
	Body        hcl.Body // without alias and version
	DeclRange   hcl.Range
}

// Key is how the module names the configuration: "aws" or "aws.west".
func (p *ProviderBlock) Key() string {
	if p.Alias == "" {
		return p.Name
	}
	return p.Name + "." + p.Alias
}

// Variable is an input variable's declaration.
type Variable struct {
	Name        string
	Description string
	Default     cty.Value // cty.NilVal: none (required)
	Type        cty.Type  // the constraint, with optional attributes
	Defaults    *typeexpr.Defaults
	Literal     bool // values given as text (--var, TF_VAR_) are taken as strings
	Sensitive   bool
	Nullable    bool
	Deprecated  string // the migration message a caller setting it is warned with
	// Const (OpenTofu 1.12's const = true) asks that every value given
	// be known before anything is installed (early.go); ConstSet says the
	// argument is there (const = false refuses the variable to sources
	// and versions).
	Const, ConstSet bool
	Validations     []*CheckRule
	DeclRange       hcl.Range
}

// Required reports whether the variable has no default.
func (v *Variable) Required() bool { return v.Default == cty.NilVal }

// CheckRule is a validation, precondition, postcondition or assertion.
type CheckRule struct {
	Condition    hcl.Expression
	ErrorMessage hcl.Expression
	DeclRange    hcl.Range
}

// Local is one entry of a locals block.
type Local struct {
	Name      string
	Expr      hcl.Expression
	DeclRange hcl.Range
}

// Output is an output block.
type Output struct {
	Name          string
	Description   string
	Expr          hcl.Expression
	Sensitive     bool
	Deprecated    string // the migration message a caller reading it is warned with
	DependsOn     []hcl.Traversal
	Preconditions []*CheckRule
	DeclRange     hcl.Range
}

// Mode says whether a resource is managed or a data source.
type Mode int

const (
	Managed Mode = iota
	Data
)

// Resource is a resource or data block.
type Resource struct {
	Mode        Mode
	Type, Name  string
	Count       hcl.Expression // nil: none
	ForEach     hcl.Expression
	Enabled     hcl.Expression // lifecycle enabled (nil: none): one instance, or none
	Provider    *ProviderRef   // nil: the default configuration of the type's provider
	enabledAttr *hcl.Attribute
	DependsOn   []hcl.Traversal
	Body        *Body

	// Lifecycle.
	CreateBeforeDestroy bool
	// Destroy is lifecycle destroy (nil: none): false forgets the object
	// where it would be destroyed (OpenTofu 1.12), a constant bool.
	Destroy            hcl.Expression
	PreventDestroy     hcl.Expression
	IgnoreChanges      []hcl.Traversal
	IgnoreAll          bool
	ReplaceTriggeredBy []hcl.Expression
	Preconditions      []*CheckRule
	Postconditions     []*CheckRule

	// Check names the check block a data source is scoped to ("": none).
	Check string

	DeclRange hcl.Range
	TypeRange hcl.Range
}

// Key is how the module names the resource: "type.name" or
// "data.type.name".
func (r *Resource) Key() string {
	if r.Mode == Data {
		return "data." + r.Type + "." + r.Name
	}
	return r.Type + "." + r.Name
}

// ProviderRef is a provider = meta-argument: a provider's local name and
// the alias of one of its configurations.
type ProviderRef struct {
	Name, Alias string
	Range       hcl.Range
}

// Key is "name" or "name.alias".
func (p *ProviderRef) Key() string {
	if p.Alias == "" {
		return p.Name
	}
	return p.Name + "." + p.Alias
}

// Call is a module block.
type Call struct {
	Name        string
	Source      string
	SourceRange hcl.Range
	Version     string
	Count       hcl.Expression
	ForEach     hcl.Expression
	Enabled     hcl.Expression // lifecycle enabled (nil: none): one instance, or none
	Inputs      hcl.Attributes // the arguments that set the child's variables
	Providers   []PassedProvider
	DependsOn   []hcl.Traversal
	DeclRange   hcl.Range

	// SourceExpr and VersionExpr are the source and version when they
	// are not literal: Source and Version are evaluated from them before
	// anything is installed (early.go). VersionRange is the version's.
	SourceExpr, VersionExpr hcl.Expression
	VersionRange            hcl.Range
}

// PassedProvider is one entry of a module call's providers map: the
// child's configuration (its key) is the parent's.
type PassedProvider struct {
	InChild, InParent ProviderRef
}

// Moved is a moved block.
type Moved struct {
	From, To  hcl.Traversal
	DeclRange hcl.Range
}

// Import is an import block.
type Import struct {
	To        hcl.Expression // a reference to a resource instance
	ID        hcl.Expression
	ForEach   hcl.Expression
	Provider  *ProviderRef
	DeclRange hcl.Range
}

// Removed is a removed block: the resource leaves the configuration,
// its object stays (lifecycle destroy = false) or is destroyed.
type Removed struct {
	From      hcl.Traversal
	Destroy   bool
	DeclRange hcl.Range
}

// Check is a check block: assertions reported as warnings.
type Check struct {
	Name       string
	Data       *Resource // its scoped data source, nil without one
	Assertions []*CheckRule
	DeclRange  hcl.Range
}
