// Package kinds owns the part of a cloud provider (aws, hetzner) that does
// not depend on the cloud: the provider.Provider calls Create, Read,
// Update, Delete and Lookup dispatched to one Kind per Kyku type; creates
// of one cloud name in this process taking turns, so the second finds the
// first's object instead of racing it; an in-place change of a property
// the cloud cannot change (Set.Fixed) refused before the Kind is asked
// (the engine replaces those);
// an optional check of cloud names; and every error wrapped with what was
// being done and to which resource.
//
// Concurrency: a Set is safe for concurrent use if its Kinds are; it holds
// one mutex per cloud name created.
package kinds
