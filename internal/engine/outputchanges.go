package engine

import (
	"maps"
	"slices"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// outputChanges are the outputs applying a plan changes in st
// (plan.Plan.OutputChanges): each of cfg's outputs as lookup resolves it
// against the plan (value.Unknown where known only after apply) that st
// does not hold with that value, then st's outputs cfg no longer has
// (cfg nil: a destroy plan, which removes them all), by name. What is
// secret is masked here, so the plan never holds it: a sensitive output's
// values, and an old value st does not record as not sensitive (a state
// from before it recorded so, or an output that was sensitive when
// applied).
func outputChanges(cfg *config.Config, st *state.File, lookup value.Lookup) []plan.OutputChange {
	var out []plan.OutputChange
	declared := map[string]bool{}
	if cfg != nil {
		sensitive := cfg.SensitiveOutputs()
		for _, o := range cfg.Outputs {
			declared[o.Name] = true
			v, unknown := value.Resolve(o.Value, lookup)
			old, had := st.Outputs[o.Name]
			if had && !unknown && value.Equal(old, v) || !had && !unknown && v == nil {
				continue // unchanged (a null output is not recorded: nothing to create)
			}
			oc := plan.OutputChange{Name: o.Name, Action: plan.Create, New: v, Unknown: unknown, Sensitive: sensitive[o.Name]}
			if had {
				oc.Action, oc.Old = plan.Update, oldOutput(st, o.Name)
			}
			if oc.Sensitive {
				oc.Old, oc.New = plan.Mask(oc.Old), plan.Masked
			}
			out = append(out, oc)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(st.Outputs)) {
		if !declared[name] {
			out = append(out, plan.OutputChange{Name: name, Action: plan.Destroy, Old: oldOutput(st, name)})
		}
	}
	slices.SortFunc(out, func(a, b plan.OutputChange) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// oldOutput is output name's value in st as a plan may show it: masked
// unless st records it as not sensitive.
func oldOutput(st *state.File, name string) any {
	v := st.Outputs[name]
	if secret, recorded := st.OutputSensitivity[name]; !recorded || secret {
		return plan.Mask(v)
	}
	return v
}

// outputsOutside are the outputs of cfg (sorted) that read a resource
// the targeted plan's set (targetSet) does not cover: such a plan leaves
// them as they are, as OpenTofu's does.
func outputsOutside(cfg *config.Config, targets map[string]bool) []string {
	covered := map[string]bool{}
	for n := range targets {
		covered[n] = true
		covered[value.BaseName(n)] = true
	}
	var out []string
	for _, o := range cfg.Outputs {
		for _, r := range value.Refs(o.Value) {
			if !covered[r.Resource] {
				out = append(out, o.Name)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// keepOutputs restores in outs and types (as typedOutputs made them) the
// outputs kept (plan.Plan.KeptOutputs) to what st holds of them.
func keepOutputs(outs, types map[string]any, kept []string, st *state.File) (map[string]any, map[string]any) {
	for _, name := range kept {
		delete(outs, name)
		delete(types, name)
		if st == nil {
			continue
		}
		if v, ok := st.Outputs[name]; ok {
			outs[name] = v
		}
		if t, ok := st.OutputTypes[name]; ok {
			if types == nil {
				types = map[string]any{}
			}
			types[name] = t
		}
	}
	return outs, types
}
