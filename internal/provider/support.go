package provider

// Refusal is one reason a provider cannot carry a configured resource.
// Property names the offending top-level property, or is "" when the
// resource as a whole is refused (e.g. its type).
type Refusal struct {
	Property string
	Reason   string // lowercase phrase, e.g. "hetzner has no managed databases"
}

// ResourceChecker is implemented by providers that cannot carry every Kyku
// type or property as configured (Hetzner has no managed databases, and its
// load balancers take no firewalls). Before planning, the engine asks it
// about every configured resource and turns each refusal into a diagnostic
// at the resource's or property's file:line:col, so an unsupported resource
// is a config error at plan time, never a failure halfway through an
// apply. CheckResource must be pure (no I/O): props are the properties as
// configured, references still unresolved ("${…}" strings), defaults
// applied.
type ResourceChecker interface {
	CheckResource(name, typ string, props map[string]any) []Refusal
}
