package provider

// NameChecker is implemented by providers whose cloud restricts the names
// it gives objects (an RDS identifier starts with a letter, a load
// balancer's name has 32 characters at most). The engine asks it about
// the cloud name of every resource a plan creates, so a name the cloud
// would refuse is a plan error naming the resource, not a failure
// half-way through an apply. Providers check again before their calls.
type NameChecker interface {
	// CheckName reports why the cloud would refuse cloudName for a new
	// object of Kyku type typ, or nil.
	CheckName(typ, cloudName string) error
}
