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
// It also owns auto-subnets (a Vpc with distributeAcrossAzs: n injects 2n
// Subnets, see InjectAutoSubnets) and BuildGraph, the dependency graph of a
// Config.
//
// Concurrency: Parse and Load share no state and may run concurrently. A
// *Config is not safe for concurrent mutation (InjectAutoSubnets, Add);
// concurrent reads, including Resource (which guards its index), are safe
// between mutations.
package config
