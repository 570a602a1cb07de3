// Package tfprovider drives Terraform providers as Kyku providers: a
// Provider is one provider configuration of a configuration's
// `providers:` section, its plugin process (package tfplugin) started at
// the first call that needs it and configured (ValidateProviderConfig,
// ConfigureProvider), serving every resource and data source of its types
// (replaced by a new one, configured the same way, once it has grown too
// large: renew.go); a Router is the one provider the engine
// drives when a configuration uses any, routing each call by type:
// `<name>_…` to the provider called name, Kyku's own types to the
// configuration's Kyku provider (sim, aws, hetzner).
//
// A Terraform provider keeps its own state (provider.TypeSchema.OwnState):
// the engine hands PlanChange the configuration with references resolved
// (value.Unknown where known only after apply) and the object as
// ReadStored refreshed it (UpgradeResourceState, ReadResource);
// PlanResourceChange's RequiresReplace paths whose values change force a
// replace; its planned state and private data are the plan
// (provider.Planned), which Create and Update send back to
// ApplyResourceChange exactly (planned again only where the
// configuration held unknown values, and then held to every value the
// reviewed plan knew). Objects carry their attribute values as
// properties and outputs (every attribute is readable by ${res.attr}),
// and their schema version and private data (provider.Stored), which
// state keeps. Diagnostics of the provider are refusals at their
// attribute paths (file:line:col in the configuration).
//
// Concurrency: a Provider and a Router are safe for concurrent use; the
// calls of one provider share its process's one gRPC connection. Close
// (of the Router: all of them, at once) stops the processes and waits for
// them; the front doors call it when the run ends, Ctrl-C included.
package tfprovider
