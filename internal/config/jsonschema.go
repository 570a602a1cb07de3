package config

import (
	_ "embed"
	"slices"
)

// kykuSchema is the JSON Schema (draft 2020-12) of a kyku.yaml file. It
// is written by hand and held to the loader by schema_test.go: its keys
// are the loader's, its resource types package schema's.
//
//go:embed kyku.schema.json
var kykuSchema []byte

// JSONSchema returns the JSON Schema of kyku.yaml (and of each file of a
// configuration directory), as editors read it: `kyku schema` prints it.
func JSONSchema() []byte { return slices.Clone(kykuSchema) }
