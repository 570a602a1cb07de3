package render

import (
	"slices"
	"strconv"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// plannedValue is c's whole planned object as --json writes it (each
// part known only after apply the marker alone, each sensitive value
// masked) and the paths of its sensitive values, sorted; nil for a
// destroy or forget, and for a change without its provider's planned
// values (Kyku's own types, a saved plan read back).
func plannedValue(c plan.Change) (any, []string) {
	if c.Action == plan.Destroy || c.Action == plan.Forget || c.Planned == nil || c.Planned.Values == nil {
		return nil, nil
	}
	planned := unknownParts(value.CopyMap(c.Planned.Values)).(map[string]any)
	var paths []string
	for _, name := range slices.Concat(c.Sensitive, c.Planned.Sensitive) {
		v, ok := planned[name]
		if !ok || v == nil {
			continue
		}
		planned[name] = plan.Masked
		if p := attrPath(name); !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return planned, paths
}

// attrPath is a top-level attribute's path in Terraform's syntax: .name,
// or ["name"] for a name that is not an identifier.
func attrPath(name string) string {
	for i, r := range name {
		ok := r == '_' || r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9'
		if !ok || i == 0 && r == '-' {
			return "[" + strconv.Quote(name) + "]"
		}
	}
	if name == "" {
		return `[""]`
	}
	return "." + name
}
