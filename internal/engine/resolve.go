package engine

import (
	"maps"
	"slices"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/value"
)

// resolveProps resolves r's properties with lookup, as value.Resolve
// does, and reports at its position each property holding a reference
// whose path does not apply to the value it reads (an index past the
// end of a list, a key its map lacks): ok is false then, and r cannot be
// planned or applied.
func resolveProps(diags *diag.Diagnostics, r *config.Resource, lookup value.Lookup) (props map[string]any, unknown, ok bool) {
	v, unknown, err := value.ResolveChecked(r.Properties, lookup)
	if err == nil {
		return v.(map[string]any), unknown, true
	}
	// Which properties: each at its position, in order (the rare path).
	for _, k := range slices.Sorted(maps.Keys(r.Properties)) {
		if _, _, err := value.ResolveChecked(r.Properties[k], lookup); err != nil {
			pos, found := r.PropPos.Nearest(k)
			if !found {
				pos = r.Pos
			}
			diags.Add(pos, "resource %s: property %q: %v", value.QuoteName(r.Name), k, err)
		}
	}
	return nil, unknown, false
}
