package provider

// Desired is one configured resource as a provider checks it before
// planning: the properties as written, defaults applied, references still
// unresolved ("${…}" strings). Auto-subnets are included once the engine
// has injected them.
type Desired struct {
	Name       string         // Kyku name, e.g. "web" or "web[0]"
	Type       string         // Kyku type
	Properties map[string]any // canonical values (package value)
	// Data says that this is a data source (a read-only lookup), not a
	// managed resource: a provider may have both under one type name.
	Data bool
}

// Refusal is one reason a provider cannot carry a configured resource (or
// a planned change of it) as it stands.
type Refusal struct {
	// Resource is the Kyku name of the refused resource (Desired.Name).
	Resource string
	// Path is the refused property, down to a list element or a field
	// where it can say ("size", "ingress[2].cidr", "tags.env"); "" refuses
	// the resource as a whole (its type, its name). The engine positions
	// the diagnostic at the deepest part of Path the configuration knows.
	Path string
	// Reason is a lowercase phrase, e.g. "hetzner has no managed databases".
	Reason string
	// Summary and Detail, when set, are how OpenTofu says the same of a
	// Terraform configuration ("Unsupported argument", "An argument named
	// …"): the engine says them in place of Reason for a resource read
	// from .tf files.
	Summary, Detail string
}
