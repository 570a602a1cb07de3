// Package property owns the Kyku property vocabulary as the cloud adapters
// (aws, hetzner) read and write it: canonical values (package value:
// strings, float64 numbers, bools, []any, map[string]any) read as Go types,
// with the zero value or a default when a property is absent or of another
// type; lists of references compared as sets; and the "tags" property told
// apart from the system tags or labels an adapter keeps its own
// bookkeeping in.
//
// Pure functions, safe for concurrent use.
package property
