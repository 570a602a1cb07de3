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
	// the names of both, sorted, each once (no set made of them: this
	// runs for every resource planned)
	var small [16]string // most resources have few: sorted without allocating
	keys := small[:0]
	if n := len(planned) + len(prior); n > len(small) {
		keys = make([]string, 0, n)
	}
	for k := range planned {
		keys = append(keys, k)
	}
	for k := range prior {
		if _, ok := planned[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []plan.PropChange
	if prior == nil {
		out = make([]plan.PropChange, 0, len(keys)) // a create: one a name at most
	}
	for _, name := range keys {
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
	if len(out) == 0 {
		return nil
	}
	return out
}
