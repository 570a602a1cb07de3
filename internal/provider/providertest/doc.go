// Package providertest owns the conformance suite that every Kyku provider
// (sim, aws, …) must pass, in the spirit of OpenTofu's statemgr.TestFull:
// one Run function exercising the provider.Provider contract — idempotent
// create by cloud name, provider-native IDs that are never Kyku names, Read
// and Lookup, in-place Update, Delete with a typed "not found", stable zones,
// and concurrent creates.
//
// A provider's own test calls Run with a constructor and Fixtures that build
// small valid resources of each type from the IDs of objects the suite has
// already created. Default returns fixtures for every Kyku type that a
// provider accepting the schema's vocabulary as is (like the sim) can use.
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
