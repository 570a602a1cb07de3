// Package provider owns the contract between the engine and a cloud, in
// the shape of the plugin protocol (OpenTofu's providers.Interface,
// terraform-plugin-go's tfprotov6): Provider, the values it takes and
// returns, its typed errors, and an explicit registry (no init()).
//
// The contract is one interface made of small roles. Every provider
// implements every role, so the engine asserts nothing:
//
//   - Schemas: per type, what the provider says of it (TypeSchema: its
//     owner, whether the provider keeps its own state of its objects, the
//     replace rules, what keeps an object from deletion, renames), and the
//     attribute facts a plugin's schema holds.
//   - Checker: pure checks of configured values, cloud names and IDs.
//   - Validator: checks that ask a plugin or the cloud, never changing it.
//   - Planner: plan one change: planned values, what forces a replace and
//     why, refusals at their paths.
//   - Applier: create, update, delete, rename.
//   - Reader: read one object, many at once, by cloud name, or to import.
//   - DataSources: zones and data sources, read-only.
//   - Lifecycle: stop calls in flight, release what the provider runs.
//
// A method a provider has nothing to do for answers plainly, as its own
// doc says: an empty answer, a no-op, or ErrNotSupported.
//
// Four implementations: sim, aws and hetzner (Kyku's own types, planned
// by the shared planner in package kinds, each cloud supplying its rules
// and checks), and tfprovider (a Terraform provider over the plugin
// protocol). tfprovider.Router serves several of them as one Provider.
// Package providertest holds the conformance suite all four pass.
//
// Concurrency: a Provider must be safe for concurrent use. Every call
// that does I/O takes a context and may be retried by the engine when its
// error is Transient.
package provider
