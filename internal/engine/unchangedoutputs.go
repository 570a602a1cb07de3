package engine

import (
	"slices"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// unchangedOutputs are cfg's outputs a plan leaves as st holds them
// (plan.Plan.UnchangedOutputs): each one not among changes,
// with its value as lookup resolves it (null for an output state does
// not record and that is null), masked when sensitive.
func unchangedOutputs(cfg *config.Config, st *state.File, lookup value.Lookup, changes []plan.OutputChange) []plan.OutputChange {
	if cfg == nil {
		return nil
	}
	changed := map[string]bool{}
	for _, oc := range changes {
		changed[oc.Name] = true
	}
	sensitive := cfg.SensitiveOutputs()
	var out []plan.OutputChange
	for _, o := range cfg.Outputs {
		if changed[o.Name] {
			continue
		}
		v, _ := value.Resolve(o.Value, lookup)
		oc := plan.OutputChange{Name: o.Name, Action: plan.NoOp, Old: oldOutput(st, o.Name), New: v, Sensitive: sensitive[o.Name]}
		if oc.Sensitive {
			oc.Old, oc.New = plan.Mask(oc.Old), plan.Mask(oc.New)
		}
		out = append(out, oc)
	}
	slices.SortFunc(out, func(a, b plan.OutputChange) int { return strings.Compare(a.Name, b.Name) })
	return out
}
