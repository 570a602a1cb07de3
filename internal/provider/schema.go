package provider

import "slices"

// TypeSchema is what a provider says of one of its types without asking
// anyone.
type TypeSchema struct {
	// Provider names the provider that owns the type (plan.Change.Provider):
	// a Terraform provider's local name, or the registry name of the
	// provider of Kyku's types.
	Provider string
	// OwnState says that the provider keeps its own form of the type's
	// objects (Stored: a Terraform provider's state, schema version and
	// private data) and wants it back with every call. The engine keeps
	// that form in state and in the plan, reads with ReadStored, deletes
	// with DeleteStored, has references read the planned values, and
	// gives the objects no cloud names of its own (no lookups by name, no
	// stale IDs, no name checks).
	OwnState bool
	// Rules are the cloud's rules for the type's top-level properties
	// (Kyku's types): in place or replace, and why. The planner applies
	// them; a property without one falls back to Kyku's schema
	// (schema.Type.Immutable). The conformance suite (providertest) holds
	// each rule to what the provider's test server does.
	Rules Rules
	// KeptBy lists the uses that keep the cloud from deleting an object of
	// the type (EC2's DependencyViolation, Hetzner's resource_in_use). The
	// engine refuses a plan that would destroy such an object before its
	// replacement is made while a resource that stays uses it.
	KeptBy []Use
	// Renames says objects of the type can take a new cloud name in
	// place (Rename).
	Renames bool
	// Version is the version of the provider that serves the type ("":
	// none to say). A plan reads and plans again every object last
	// applied by another version (engine, reads.go).
	Version string
}

// Rule is what a cloud does when one property of an existing object
// changes: change it in place, or not (the engine then replaces the
// resource).
type Rule struct {
	// Replace says the change cannot be made in place.
	Replace bool
	// Reason says why, as the plan shows it after "# forces replacement:"
	// ("an ELBv2 target group's port cannot change"); for an in-place rule
	// it may say how the change is made ("stop, modify, start").
	Reason string
}

// InPlace is the rule of a property the cloud changes in place; how says
// how (optional).
func InPlace(how string) Rule { return Rule{Reason: how} }

// Replaces is the rule of a property whose change forces a replace.
func Replaces(reason string) Rule { return Rule{Replace: true, Reason: reason} }

// Rules are the rules of one type: property name → rule, one per property
// of the type's schema.
type Rules map[string]Rule

// Use is a property of a type (Vm's subnet) whose reference to an object
// keeps the cloud from deleting that object.
type Use struct{ Type, Property string }

// RefersTo reports whether v, a property of a Use (an ID, or a list of
// them), holds id.
func RefersTo(v any, id string) bool {
	switch x := v.(type) {
	case string:
		return x == id
	case []any:
		return slices.ContainsFunc(x, func(e any) bool { s, _ := e.(string); return s == id })
	}
	return false
}
