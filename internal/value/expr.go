package value

// An Expr is a property value computed when the engine resolves it: an
// HCL expression reading other resources' values (package tfconfig).
// Resolve and ResolveChecked evaluate it with their lookup, Refs lists
// what it reads, and it writes itself as JSON for hashes and plan files
// (as a description of the expression, not its value). An Expr is
// immutable and safe for concurrent use.
type Expr interface {
	// Refs are the resource instances the expression reads: Attr names
	// an attribute it reads by name, AllAttrs one it reads whole (a
	// splat, a for expression, the object passed on).
	Refs() []Ref
	// Eval evaluates the expression, every reference read with lookup
	// (a Ref with Attr AllAttrs asks for the instance's whole object:
	// a map of its attributes). Parts not known yet are Unknown in v, and
	// unknown says there are some. An error is about the configuration
	// (a function's refusal, an attribute the object lacks): it carries
	// its own position.
	Eval(lookup Lookup) (v any, unknown bool, err error)
	MarshalJSON() ([]byte, error)
}

// TypedExpr is an Expr that also says its value's type (a Terraform
// expression's), in Terraform's JSON type syntax ("string",
// ["list","string"]; nil when it cannot say), as a state records an
// output's: a list, a set and a tuple of the same elements are one value
// of three types.
type TypedExpr interface {
	Expr
	EvalTyped(lookup Lookup) (v, typ any, unknown bool, err error)
}

// AllAttrs is the Attr of a Ref that reads a resource instance's whole
// object (Expr): the lookup answers a map of every attribute, "id" among
// them, Unknown where not known yet.
const AllAttrs = "*"

// ObjectType is the Attr of a Ref that asks a resource instance's type
// rather than a value: the lookup answers the type of its whole object
// in Terraform's JSON type syntax (["object",{…}]), as JSON text (a
// string), when its provider's
// schema is known, so that an expression reading it sees a list, a set
// or a map as such (canonical values hold each as a list or an object);
// not found otherwise.
const ObjectType = "\x00type"

// Applying is the reference a lookup answers (with ok true) while apply
// resolves a resource, and only then: an Expr's impure functions
// (timestamp, uuid, bcrypt) are known after apply, not at plan.
var Applying = Ref{Attr: "(applying)"}
