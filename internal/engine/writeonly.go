package engine

import (
	"context"
	"maps"
	"slices"

	"github.com/kyku/action/internal/plan"
)

// Write-only attributes (a Terraform provider's, provider.Schemas.WriteOnly)
// are sent to the provider with the configuration and kept nowhere: the
// plan names them (plan.Plan.WriteOnly), a plan file leaves their values
// out, state's copy of the configuration has none of them (stateOf), and
// their values are learnt as secrets by the provider that sends them.

// writeOnly records in p.WriteOnly the write-only properties each
// resource of its configuration sets, planned or not: a plan file embeds
// the whole configuration, also when --target plans part of it.
func (e *Engine) writeOnly(ctx context.Context, p *plan.Plan) error {
	if p.Config == nil {
		return nil
	}
	byType := map[string][]string{}
	for _, r := range p.Config.Resources {
		if r.Data || !e.ownState(r.Type) {
			continue
		}
		names, seen := byType[r.Type]
		if !seen {
			var err error
			if names, err = e.provider.WriteOnly(ctx, r.Type); err != nil {
				return err
			}
			byType[r.Type] = names
		}
		var set []string
		for _, n := range names {
			if _, ok := r.Properties[n]; ok {
				set = append(set, n)
			}
		}
		if len(set) > 0 {
			if p.WriteOnly == nil {
				p.WriteOnly = map[string][]string{}
			}
			p.WriteOnly[r.Name] = set
		}
	}
	return nil
}

// withoutWriteOnly is props without the properties names (props itself
// when it has none of them).
func withoutWriteOnly(props map[string]any, names []string) map[string]any {
	if !slices.ContainsFunc(names, func(n string) bool { _, ok := props[n]; return ok }) {
		return props
	}
	out := maps.Clone(props)
	for _, n := range names {
		delete(out, n)
	}
	return out
}
