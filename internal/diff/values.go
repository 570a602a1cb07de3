package diff

import (
	"slices"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// Values lists what a provider's own plan changes (a Terraform provider's
// planned state against its prior state): every attribute, computed ones
// too, compared as Resource compares properties (maps key by key, lists
// of equal length element by element); a value known only after apply is
// value.Unknown and shows as such. With prior nil (a create) it lists
// every planned value that is set. Top-level attributes in sensitive are
// masked.
func Values(prior, planned map[string]any, sensitive []string) []plan.PropChange {
	keys := make(map[string]bool, len(planned)+len(prior))
	for k := range planned {
		keys[k] = true
	}
	for k := range prior {
		keys[k] = true
	}
	var out []plan.PropChange
	for _, name := range sortedKeys(keys) {
		n := len(out)
		if prior == nil {
			if v := planned[name]; !isEmpty(v) {
				out = append(out, plan.PropChange{Path: name, New: v, Unknown: value.HasUnknown(v)})
			}
		} else {
			compare(name, prior[name], planned[name], &out)
		}
		if slices.Contains(sensitive, name) {
			for i := n; i < len(out); i++ {
				out[i].Sensitive = true
			}
		}
	}
	return out
}
