package provider

import "context"

// Ref names one cloud object: its Kyku type and provider ID. Provider IDs
// are only unique per type (a Hetzner server and a network may share a
// number), so bulk reads key their results by Ref.
type Ref struct {
	Type string // Kyku type, e.g. "Vm"
	ID   string // provider ID
}

// BulkReader is implemented by providers that can read many objects in a
// few list calls (by ID filters, or by the deploy prefix's label or tag,
// every page read to the end) instead of one Read per object. The engine
// hands it every resource of a plan that has a provider ID; providers that
// do not implement it are read one object at a time.
type BulkReader interface {
	// ReadMany returns the objects it found among refs. prefix is the
	// deploy prefix (the kyku-prefix label or kyku:prefix tag). A ref
	// missing from the result is not proof that the object is gone: the
	// engine reads it with Read before calling it gone.
	ReadMany(ctx context.Context, prefix string, refs []Ref) (map[Ref]Object, error)
}
