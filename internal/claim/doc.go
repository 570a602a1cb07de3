// Package claim owns claims on keys that several processes share through
// one store: a claim is taken by a conditional create in a statemgr
// backend (the primitive its lock is made of; no other service), held
// until a deadline, renewed by its holder, released, and taken over by
// anyone once it has expired — with a write conditional on the version
// read, so that of two takers only one wins.
//
// The bot takes a claim on each webhook delivery it runs (on its ID and on
// its signed body's digest), so a delivery runs once across replicas and a
// replayed body does not run again within the window. A lease that a
// worker renews while it works — and that another replica takes over when
// the worker dies — is the same claim with a short deadline.
//
// A claim's deadline is judged by the clock of whoever reads it: replicas
// whose clocks disagree by more than a small part of a claim's duration
// see it expire at different times.
//
// Concurrency: a *Store is safe for concurrent use; claims are values a
// caller keeps.
package claim
