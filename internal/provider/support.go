package provider

import "context"

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
}

// ResourceChecker is implemented by providers that check configured values
// the way their cloud's API would: what a type or property cannot be
// there (Hetzner has no managed databases), value syntax and ranges (a
// CIDR's host bits, ports 1–65535), documented limits (rules per security
// group) and name rules. The engine asks it about every resource of a
// configuration, all at once (a check may span resources: a subnet inside
// its VPC's range), before planning and at `kyku validate`, and turns each
// refusal into a diagnostic at its file:line:col, so a value the cloud
// would refuse is a config error, never a failure halfway through an
// apply. CheckResources must be pure: no I/O, no clock, no state.
type ResourceChecker interface {
	CheckResources(rs []Desired) []Refusal
}

// CloudChecker is implemented by providers whose checks need to ask the
// cloud what it offers (the server types a Hetzner location sells). The
// engine calls it once per plan, after ResourceChecker found nothing, with
// every resource; it may call the API (and should cache what it reads, so
// a plan costs one request per catalogue), never change anything. `kyku
// validate` does not call it. An error is a failure to ask, not a refusal.
type CloudChecker interface {
	CheckCloud(ctx context.Context, rs []Desired) ([]Refusal, error)
}
