// Package tfschema owns the schemas of Terraform provider plugins and the
// meeting of their values with Kyku's: a provider's, resource type's or
// data source's Schema (blocks, attributes, nested blocks and nested
// attribute types with their nesting modes, as GetProviderSchema answers
// them), the cty type each implies, Config (Kyku properties → the
// configuration value the protocol wants, every schema error collected
// with its path), ToCty and FromCty (canonical values of package value ↔
// cty values, value.Unknown ↔ unknown), ProposedNew (the proposed new
// state of PlanResourceChange), sensitivity (SensitiveNames, Mask,
// SensitivePaths) and Diagnostics with attribute paths.
//
// It is a domain package: it imports package value and go-cty, never the
// plugin client (package tfplugin imports it). Pure functions; a Block,
// once Finish has run, is only read and safe to share between goroutines.
// Nothing runs at package init.
//
// # For the engine (phase 2 of "any Terraform provider")
//
// A configuration names providers in a `providers:` section (source,
// version constraint, config); a resource whose type is `<name>_<rest>`
// with `<name>` a declared provider is that provider's. Its properties
// go through Config against the resource type's block: the diagnostics'
// paths map to the YAML nodes of the properties (file:line:col), all at
// once. Values flow as canonical values: references resolve as today,
// unknown ones as value.Unknown, which ToCty turns into cty unknowns of
// the attribute's type (a string merely containing it is unknown as a
// whole) and FromCty turns back, so "known after apply" renders as it
// does for Kyku's own types. What the provider marks sensitive is masked
// by SensitiveNames (per top-level property, as Kyku masks its own) or
// Mask (per attribute).
//
// Per resource, state must hold the schema version the values were
// written with (state of an older version goes through
// UpgradeResourceState before anything else), the provider's private
// bytes (opaque, returned with every later call) and the attribute
// values (FromCty of the provider's new state; ToCty with the schema's
// type reads them back: null attributes are left out and come back
// null). A saved plan carries, per change, the planned state exactly as
// the provider returned it (its msgpack bytes, which keep unknowns and
// their refinements), the planned private bytes, the prior state and the
// schema version: apply sends exactly those to ApplyResourceChange, and
// the plan's digest covers them.
package tfschema
