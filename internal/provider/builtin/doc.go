// Package builtin serves OpenTofu's built-in provider,
// terraform.io/builtin/terraform, in process: its resource type
// terraform_data, planned, applied, imported and read as OpenTofu 1.12
// does (its internal/builtin/providers/tf), and its data source
// terraform_remote_state, read through an injected StateReader. It implements the one
// provider contract (provider.Provider), so the engine drives it as it
// drives a Terraform provider's plugin: the types it serves keep their
// own state (TypeSchema.OwnState) and their planned values are what
// apply carries out. tfprovider.Router serves it for the types named
// terraform_….
//
// The IDs of new objects come from an injected source (New), so tests
// are deterministic. Concurrency: a Provider holds no mutable state and
// is safe for concurrent use, as far as its ID source is.
package builtin
