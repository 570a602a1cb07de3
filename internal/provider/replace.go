package provider

import (
	"context"
	"slices"
)

// Rule is what a cloud does when one property of an existing object
// changes: change it in place, or not (the engine then replaces the
// resource: destroy, then create).
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

// ReplaceRules is implemented by providers that declare, per type and per
// top-level property, whether their cloud can change it in place: the
// static table of the cloud's rules. The engine plans a replace for every
// changed property whose rule says so, with the rule's reason. ReplaceRules
// returns nil for a type the provider does not carry; a property without a
// rule falls back to Kyku's schema (schema.Type.Immutable). The agreement
// test (internal/provider/agreement) holds every rule to what the
// provider's test server does.
type ReplaceRules interface {
	ReplaceRules(typ string) Rules
}

// ChangeRequest is one planned change a ChangePlanner is asked about.
type ChangeRequest struct {
	// Resource is what apply would send: Properties are the desired
	// values with references resolved to provider IDs; a value not yet
	// known holds value.Unknown.
	Resource
	// ID is the object's provider ID; "" for a create.
	ID string
	// Prior is the object's properties as read from the cloud (the last
	// applied value where the cloud cannot report one); nil for a create.
	Prior map[string]any
	// Changed lists the top-level properties whose value differs from
	// Prior, sorted; every property for a create.
	Changed []string
	// Stored is the object as the provider keeps it (Object.Stored as
	// discovery read it), for a provider that plans every change itself;
	// nil for a create.
	Stored *Stored
	// Replace says the object is to be replaced whatever changed (kyku
	// plan --replace, Terraform's -replace): a provider that plans every
	// change itself plans its replacement as a create (Stored and Prior
	// are still the object's, for showing what changes).
	Replace bool
}

// Forced is a change that forces a replace, and why.
type Forced struct {
	Path   string // a changed property ("size"), or a path below one
	Reason string // as Rule.Reason
}

// ChangePlan is a provider's answer about one change.
type ChangePlan struct {
	// Replace lists the changes that cannot be made in place because of
	// their values (a Hetzner server type of another architecture), on
	// top of what ReplaceRules says.
	Replace []Forced
	// Refusals are changes the cloud refuses whichever way (an RDS
	// instance's storage cannot shrink, and replacing a database to get
	// there is not something a plan should do quietly): the plan fails
	// with each, positioned in the configuration.
	Refusals []Refusal
	// CreateBeforeDestroy asks, should the change be a replace, for the
	// replacement to be made before the object is destroyed: the cloud
	// does not delete the object while resources use it (a Hetzner
	// firewall applied to servers). The engine does so when resources
	// that stay (updates) use the object: it creates the replacement
	// under another cloud name, updates them, then destroys the object;
	// the plan says so (plan.CreateBeforeDestroy). Ask only where the
	// old object and its replacement can exist side by side.
	CreateBeforeDestroy bool

	// Planned, from a provider that plans every change itself (a
	// Terraform provider), is its plan: the engine derives the action
	// from it (no difference and no replace: a no-op), shows its values
	// and has apply carry it out exactly. For a replace it is the plan
	// of the new object. Nil from the others.
	Planned *Planned
}

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

// UseKeeper is a provider whose cloud refuses to delete an object that
// another still refers to (EC2's DependencyViolation, Hetzner's
// resource_in_use): KeptBy lists, for typ, the uses that keep its objects.
// The engine refuses a plan that would destroy such an object before its
// replacement is made while a resource that stays uses it: apply could
// only fail there.
type UseKeeper interface {
	KeptBy(typ string) []Use
}

// ChangePlanner is implemented by providers whose answer depends on the
// values (a resize to a smaller disk, a storage change smaller than the
// cloud allows), or that plan every change themselves (a Terraform
// provider's PlanResourceChange: its RequiresReplace paths are Replace,
// its diagnostics Refusals). The engine calls it for every resource a
// plan creates, updates or replaces because of its properties, after
// ReplaceRules, with the change as the diff found it; it may call the
// cloud (read-only) and must be safe for concurrent use. It can only add
// replaces, never turn a rule's replace into an update. For the types of
// a provider that plans every change itself (config.Resource.Provider
// set), the engine asks about every resource, unchanged ones too, and the
// answer's Planned decides.
type ChangePlanner interface {
	PlanChange(ctx context.Context, req ChangeRequest) (ChangePlan, error)
}
