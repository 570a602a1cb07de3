package provider

// ChangeRequest is one resource a Planner is asked to plan, changed or
// not: from the object as it is (none for a create) to the configuration.
type ChangeRequest struct {
	// Resource is what apply would send: Properties are the desired
	// values with references resolved to provider IDs; a value not yet
	// known holds value.Unknown.
	Resource
	// ID is the object's provider ID; "" for a create.
	ID string
	// Prior is the object's properties as read from the cloud (discovery,
	// or the import that found it); nil for a create.
	Prior map[string]any
	// Applied are the properties last applied (state), for what the cloud
	// cannot report; nil for a create or an import.
	Applied map[string]any
	// Stored is the object as the provider keeps it (Object.Stored as
	// discovery read it), for a type with OwnState; nil for a create.
	Stored *Stored
	// IgnoreChanges lists top-level properties whose difference from the
	// object is no change (the configuration's ignoreChanges, Terraform's
	// ignore_changes); for a Terraform provider's type, also a part of one,
	// its name followed by a path in value.Ref's syntax (tags["Name"]).
	IgnoreChanges []string
	// Replace says the object is to be replaced whatever changed (kyku
	// plan --replace, Terraform's -replace): the replacement is planned as
	// a create (Stored and Prior are still the object's, for showing what
	// changes).
	Replace bool
}

// Forced is a change that forces a replace, and why.
type Forced struct {
	Path   string // a changed property ("size"), or a path below one
	Reason string // as Rule.Reason
}

// ChangePlan is a provider's answer about one change.
type ChangePlan struct {
	// Planned is the plan: the object's values before and after. The
	// engine derives the action from it and Replace (no difference and no
	// replace: a no-op) and shows its values. For a type with OwnState,
	// apply carries it out exactly; for a replace it is the plan of the
	// new object. Nil only with Refusals: the change stops there.
	Planned *Planned
	// Replace lists the changes that cannot be made in place (a rule of
	// the type, a Hetzner server type of another architecture, a
	// Terraform provider's RequiresReplace).
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
}

// Planned is a provider's plan of one change: the values the engine shows
// (PriorValues against Values, value.Unknown where a value is known only
// after apply) and, for a type with OwnState (a Terraform provider's
// PlanResourceChange), what apply must hand back to make exactly that
// change, which the engine keeps opaque in the plan.
type Planned struct {
	// PriorValues are the object's values before the change as the plan
	// compares them (as read from the cloud at plan time); nil for a
	// create.
	PriorValues map[string]any
	// Values are the planned values; nil for a destroy.
	Values map[string]any
	// Sensitive lists the top-level attributes that are or hold a value
	// the provider's schema marks sensitive: masked wherever shown. For
	// Kyku's types, Kyku's schema says (config.Resource.SensitiveProp).
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
