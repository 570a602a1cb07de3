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
		if within, ok := c.SensitiveWithin[name]; ok {
			if masked, ok := maskWithin(v, within); ok {
				planned[name] = masked
				for _, p := range within {
					if p := attrPath(name) + p; !slices.Contains(paths, p) {
						paths = append(paths, p)
					}
				}
				continue
			}
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

// maskWithin is v (a copy, changed in place) with the value at each of
// paths (value.Ref's Path syntax) masked; ok is false when one of them is
// not there, or a splat: the caller masks v whole.
func maskWithin(v any, paths []string) (any, bool) {
	for _, p := range paths {
		steps := value.Ref{Path: p}.Steps()
		if len(steps) == 0 || slices.ContainsFunc(steps, value.Step.Splat) {
			return nil, false
		}
		parent, known, err := value.Walk(v, steps[:len(steps)-1])
		if !known || err != nil {
			return nil, false
		}
		last := steps[len(steps)-1]
		switch x := parent.(type) {
		case map[string]any:
			if _, ok := x[last.Key]; !ok || !last.ByKey() {
				return nil, false
			}
			x[last.Key] = plan.Mask(x[last.Key])
		case []any:
			if last.ByKey() || last.Index >= len(x) {
				return nil, false
			}
			x[last.Index] = plan.Mask(x[last.Index])
		default:
			return nil, false
		}
	}
	return v, true
}
