package provider

import "context"

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

// Renamer is implemented by providers that can rename an object in place,
// so that a moved resource (a `moved` entry) keeps its cloud object and ID
// and still carries its new name. CanRename says whether objects of typ
// can take a new cloud name; Rename gives object id the cloud name
// r.CloudName (the current one when CanRename is false) and marks it as
// Kyku's resource r.Name (tags or labels), leaving everything else as it
// is. A provider that is not a Renamer keeps the old names; state still
// moves.
type Renamer interface {
	CanRename(typ string) bool
	Rename(ctx context.Context, id string, r Resource) (Object, error)
}
