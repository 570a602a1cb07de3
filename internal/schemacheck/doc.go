// Package schemacheck checks a JSON value against a JSON Schema (draft
// 2020-12), for the keywords Kyku's own schemas use (kyku.schema.json):
// Compile refuses a schema holding any other keyword, so that a schema
// cannot say more than is checked. Instances are what encoding/json
// decodes into an any (nil, bool, float64, string, []any, map[string]any).
//
// It exists for tests: it holds the schema to what the loader does.
// Concurrency: a compiled *Schema is immutable and safe for concurrent use.
package schemacheck
