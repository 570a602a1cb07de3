// Package kinds owns the part of a provider of Kyku's types (sim, aws,
// hetzner) that does not depend on the cloud.
//
// Planner (plan.go) is the one planner of Kyku's types: it compares the
// object with the configuration as Kyku's schema does, replaces what the
// cloud's rules (else the schema) say cannot change in place, and asks
// the cloud's check about what the values decide. Each cloud supplies its
// rules and its check.
//
// Set (kinds.go) dispatches the calls Create, Read, Update, Delete and
// Lookup to one Kind per Kyku type (aws, hetzner): creates of one cloud
// name in this process take turns, so the second finds the first's object
// instead of racing it; an in-place change of a property the cloud cannot
// change (Set.Fixed) is refused before the Kind is asked (the planner
// replaces those); cloud names are checked when asked to; every error is
// wrapped with what was being done and to which resource.
//
// Concurrency: a Planner is safe for concurrent use if its Check is; a Set
// if its Kinds are (it holds one mutex per cloud name created).
package kinds
