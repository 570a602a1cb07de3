// Package providertest owns the one conformance suite every provider
// passes (sim, aws, hetzner and a Terraform provider through tfprovider),
// in the spirit of OpenTofu's statemgr.TestFull: Run drives the
// provider.Provider contract as the engine drives it (contract.go: a
// type's schema and checks, a create planned and carried out, read back,
// planned again with nothing to do, changed in place, deleted with a
// typed "not found"; imports, bulk reads, data sources, concurrent
// creates, cancellation, stop). For a provider of Kyku's types it then
// holds what those promise besides (kyku.go: stable zones, idempotent
// create by cloud name, lookups, references that must be provider IDs)
// and, with Fixtures.Agreement, each replace rule to what the provider's
// test server does (agreement.go, through the engine).
//
// A provider's own test calls Run with a constructor and Fixtures that
// build small valid resources of each type from the IDs of objects the
// suite has already created. Default returns fixtures for every Kyku type
// that a provider accepting the schema's vocabulary as is (like the sim)
// can use.
//
// Lifecycle is the other half: it drives a Stack (an example
// configuration, the provider, and hooks to drift and list its cloud)
// through the engine — apply, no-op plan, in-place update, replace, drift,
// destroy — so every provider is held to the same user-visible story.
// Example, Parse, Edit and Actions help build such tests.
//
// Concurrency: Run starts parallel goroutines against one provider in some
// subtests; the provider must be safe for concurrent use, as the contract says.
package providertest
