// Package config owns Kyku's configuration: it reads kyku.yaml files (one
// file or a directory of *.yaml) into a validated *Config (model.go), with a
// file:line:col position on every resource, property and diagnostic.
//
// Parse is strict and pure: unknown keys at any level are errors, values are
// checked against package schema (kinds, required, enums, defaults applied),
// every ${name} and ${name.attr} reference must name an existing resource and
// output, and dependency cycles are reported with their path. All problems
// are collected and returned together as a diag.Diagnostics. Parse does no
// I/O (the GitHub bot feeds it files from a tarball); Load reads files and
// calls Parse.
//
// ParseEnv (and LoadEnv) also expand the configuration for one
// environment (Inputs): variables get their values (--var, KYKU_VAR_<name>,
// environments.<env>.variables, default; variables.go), ${var.x},
// ${environment}, ${count.index} and ${each.…} are substituted in the YAML
// nodes as the walk meets them (expand.go), so that every position still
// points at what was written, and a resource with count or forEach is
// walked once per instance (instances.go), named web[0] or edge["a"]: the
// engine sees instances as ordinary resources. moved and import entries
// are checked and kept for the engine (moved.go). ParseEach expands every
// declared environment and reports their problems together. Parse and Load
// are ParseEnv and LoadEnv for the default environment with no outside
// values.
//
// It also owns auto-subnets (a Vpc with distributeAcrossAzs: n injects 2n
// Subnets, see InjectAutoSubnets) and BuildGraph, the dependency graph of a
// Config.
//
// Concurrency: Parse and Load share no state and may run concurrently. A
// *Config is not safe for concurrent mutation (InjectAutoSubnets, Add);
// concurrent reads, including Resource (which guards its index), are safe
// between mutations.
package config
