package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/state"
)

// rulesOf hands out, per type, whether a change of a property forces a
// replace on the provider's cloud and why: the provider's rules
// (provider.ReplaceRules), and for a property it has no rule for (or a
// provider without rules) the schema's Immutable. One per plan; the
// functions are built once per type.
type rulesOf struct {
	p     provider.ReplaceRules // nil: the schema decides
	cache map[string]func(string) (bool, string)
}

func newRulesOf(p provider.Provider) *rulesOf {
	r, _ := p.(provider.ReplaceRules)
	return &rulesOf{p: r, cache: map[string]func(string) (bool, string){}}
}

// of returns the rule function of type t for diff.Input.Rule.
func (r *rulesOf) of(t *schema.Type) func(string) (bool, string) {
	if f, ok := r.cache[t.Name]; ok {
		return f
	}
	var rules provider.Rules
	if r.p != nil {
		rules = r.p.ReplaceRules(t.Name)
	}
	f := func(prop string) (bool, string) {
		if rule, ok := rules[prop]; ok {
			return rule.Replace, rule.Reason
		}
		return t.Immutable(prop), ""
	}
	r.cache[t.Name] = f
	return f
}

// planChange asks the provider, when it is a provider.ChangePlanner, about
// change ch of r (a create, or an update or replace the diff found):
// what its values force to be replaced, marked on ch (an update becomes a
// replace), and what the cloud refuses, added to diags at r's positions.
// props are the resolved desired properties, prefix the deploy prefix;
// for an existing object o is what discovery read and sr its state.
func (e *Engine) planChange(ctx context.Context, diags *diag.Diagnostics, r *config.Resource, ch *plan.Change, prefix string, props map[string]any, o provider.Object, sr *state.Resource) error {
	cp, ok := e.provider.(provider.ChangePlanner)
	if !ok {
		return nil
	}
	req := provider.ChangeRequest{
		Resource: provider.Resource{Name: r.Name, Type: r.Type, CloudName: ch.CloudName, Prefix: prefix, Properties: props},
	}
	if ch.Action == plan.Create {
		req.Changed = slices.Sorted(maps.Keys(props))
	} else {
		req.ID = ch.ProviderID
		req.Prior = make(map[string]any, len(o.Properties)+len(sr.Config))
		maps.Copy(req.Prior, sr.Config) // where the cloud cannot report a value: the last applied one
		maps.Copy(req.Prior, o.Properties)
		req.Changed = changedProps(ch.Properties)
	}
	var res provider.ChangePlan
	err := e.call(ctx, nil, func(ctx context.Context) error {
		var err error
		res, err = cp.PlanChange(ctx, req)
		return err
	})
	if err != nil {
		return fmt.Errorf("plan %s %q with %s: %w", r.Type, r.Name, e.provider.Name(), err)
	}
	for _, ref := range res.Refusals {
		ref.Resource = r.Name
		addRefusal(diags, r, ref)
	}
	if ch.Action == plan.Create || len(res.Replace) == 0 {
		return nil
	}
	for _, f := range res.Replace {
		marked := false
		for i := range ch.Properties {
			pc := &ch.Properties[i]
			if pc.Path == f.Path || strings.HasPrefix(pc.Path, f.Path+".") || strings.HasPrefix(pc.Path, f.Path+"[") {
				marked = true
				if !pc.ForcesReplace {
					pc.ForcesReplace, pc.ReplaceReason = true, f.Reason
				}
			}
		}
		if !marked && ch.Reason == "" {
			ch.Reason = f.Reason // a replace the diff shows no property for: say why on the change
		}
	}
	ch.Action = plan.Replace
	return nil
}

// changedProps lists the top-level properties of changes, sorted, once each.
func changedProps(pcs []plan.PropChange) []string {
	var out []string
	for _, pc := range pcs {
		name := pc.Path
		if i := strings.IndexAny(name, ".["); i > 0 {
			name = name[:i]
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
