package provider

// ChangeRequest is one planned change a Planner is asked about.
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
	// discovery read it), for a type with OwnState; nil for a create.
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
	// top of what the type's Rules say.
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

	// Planned, for a type with OwnState, is the provider's plan: the
	// engine derives the action from it (no difference and no replace: a
	// no-op), shows its values and has apply carry it out exactly. For a
	// replace it is the plan of the new object.
	Planned *Planned
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
