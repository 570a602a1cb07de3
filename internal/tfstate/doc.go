// Package tfstate reads and writes Terraform's state format version 4 as
// OpenTofu 1.12 writes it, keeping everything it holds: outputs with their
// types, resources with their instances (schema versions, raw attributes,
// sensitive attribute paths, private data, dependencies,
// create_before_destroy, deposed objects, identities) and check results.
//
// Encode writes what OpenTofu writes for the same content: its fields in
// its order, its empty-field rules, resources and instances in its order,
// in the compact form of remote backends and backups or the indented form
// of its local backend. A state OpenTofu wrote decodes and encodes back to
// the same bytes; testdata/record.sh records such states with a real tofu.
// Decode and DecodeExtra read through a JSON reader of their own
// (wirereader.go, wiredecode.go), which leaves to encoding/json, whose
// result and errors stand, whatever it is not sure to read the same way.
// EncodeExtra writes what json.Marshal writes, appending to one buffer
// without reflection.
//
// Bridge (bridge.go) maps a File to Kyku's state model (package state) and
// back. What the model has no place for stays in the File, so a Kyku write
// changes only the bytes of the instances and outputs that changed; what
// the model holds and a Terraform state cannot (the deploy prefix, a
// resource's config) is Extra, which a backend keeps beside the state.
// Kyku's own types (kyku_vpc, …) are the resources of a provider of their
// own, their whole object in their attributes (kykutypes.go).
//
// Pure: no I/O. A *File is not safe for concurrent mutation; a *Bridge
// is read-only once made, and safe for concurrent use.
package tfstate
