package engine

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// refuse adds to the diagnostics what apply could not carry out, or must
// not (replaces in an order the cloud refuses, outputs that would show a
// secret, cloud names taken, protected resources destroyed), and returns
// the destroys: what state has and the configuration no longer, in
// reverse dependency order (forgotten when already gone).
func (x *planning) refuse() []plan.Change {
	x.e.orderReplaces(&x.diags, x.cfg, x.st, x.p.Changes)
	refuseSensitiveOutputs(&x.diags, x.cfg, x.sensitive)
	checkOutputConditions(&x.diags, x.cfg, x.lookup)
	for _, o := range x.cfg.Outputs { // a path that does not apply to what it reads
		if _, _, err := value.ResolveChecked(o.Value, x.lookup); err != nil {
			x.diags.Add(o.Pos, "output %q: %s", o.Name, refErrText(err, secretIn(x.sensitive)))
		}
	}
	destroys := x.e.destroyChanges(x.st, func(name string) bool { return x.cfg.Resource(name) != nil || !x.keep(name) }, x.objs, x.gone, x.cfg.Forgets)
	x.e.refuseKeptDeletes(&x.diags, x.cfg, x.st, x.p.Changes, destroys)
	checkCloudNames(&x.diags, x.cfg, x.st, x.p.Changes)
	refuseChangedCountReads(&x.diags, x.cfg, x.p.Changes)
	refuseProtectedDestroys(&x.diags, x.st, destroys)
	return destroys
}

// refuseProtectedDestroys refuses the destroys of protected resources.
// A Terraform configuration's resource (its address has a '.') is
// refused in OpenTofu's words.
func refuseProtectedDestroys(diags *diag.Diagnostics, st *state.File, changes []plan.Change) {
	for _, ch := range changes {
		switch {
		case ch.Action != plan.Destroy || !st.Resources[ch.ResourceID].Protect:
		case strings.IndexByte(ch.ResourceID, '.') > 0:
			diags.Add(diag.Pos{}, "Instance cannot be destroyed: Resource %s has lifecycle.prevent_destroy set, but the plan calls for this resource to be destroyed. To avoid this error and continue with the plan, either disable lifecycle.prevent_destroy or reduce the scope of the plan using the --target flag.", ch.ResourceID)
		default:
			diags.Add(diag.Pos{}, "resource %s is protected (protect: true) and cannot be destroyed; set protect: false and apply first", value.QuoteName(ch.ResourceID))
		}
	}
}

// finish completes the plan, unless the diagnostics refuse it: its
// outputs' changes, its changes in order then the destroys, the secrets
// they hold, who owns each type, what is write-only, the counts; a plan
// that destroys everything is refused unless allowed.
func (x *planning) finish(ctx context.Context, destroys []plan.Change) (*plan.Plan, error) {
	if err := x.diags.Err(); err != nil {
		return nil, err
	}
	p := x.p
	p.Warnings = checkAssertions(x.cfg, x.lookup)
	p.OutputChanges = outputChanges(x.cfg, x.st, x.lookup)
	p.UnchangedOutputs = unchangedOutputs(x.cfg, x.st, x.lookup, p.OutputChanges)
	sortChanges(p.Changes)
	p.Changes = append(p.Changes, destroys...)
	if err := refuseInterrupted(x.st, p.Changes); err != nil { // intent.go
		return nil, x.e.markUnkept(ctx, x.st, err) // answers.go
	}
	if err := refuseInterruptedRemoved(x.st, x.cfg, p.Changes, x.keep); err != nil {
		return nil, err
	}
	p.Secrets = stateSecrets(x.st, p.Changes)
	if err := x.e.ownTypes(ctx, p); err != nil {
		return nil, err
	}
	x.e.owners(p)
	if err := x.e.writeOnly(ctx, p); err != nil {
		return nil, err
	}
	p.Count()
	if err := guardDestroyAll(p, x.opts.AllowDestroyAll); err != nil {
		return nil, err
	}
	return p, nil
}

// ownTypes records in p.OwnTypes the provider's own name of every type of
// its changes and configuration that the configuration names otherwise
// (provider.Schemas.OwnType).
func (e *Engine) ownTypes(ctx context.Context, p *plan.Plan) error {
	types := map[string]bool{}
	for _, c := range p.Changes {
		types[c.Type] = true
		types[c.PriorType] = true
	}
	if p.Config != nil {
		for _, r := range p.Config.Resources {
			types[r.Type] = true
		}
	}
	delete(types, "")
	for _, typ := range slices.Sorted(maps.Keys(types)) {
		own, err := e.provider.OwnType(ctx, typ)
		if err != nil {
			return err
		}
		if own != "" {
			if p.OwnTypes == nil {
				p.OwnTypes = map[string]string{}
			}
			p.OwnTypes[typ] = own
		}
	}
	return nil
}

// owners records in each change of p the provider that owns its type
// (plan.Change.Provider).
func (e *Engine) owners(p *plan.Plan) {
	for i := range p.Changes {
		c := &p.Changes[i]
		c.Provider = e.provider.Schema(c.Type).Provider
	}
}

// stateSecrets are the texts st holds as secret (Resource.Sensitive, in
// what was applied and in what the cloud reported) of the objects changes
// destroy or replace: plan.Plan.Secrets.
func stateSecrets(st *state.File, changes []plan.Change) []string {
	var out []string
	for _, c := range changes {
		if c.Action != plan.Destroy && c.Action != plan.Forget && c.Action != plan.Replace {
			continue
		}
		sr := st.Resources[c.ResourceID]
		if sr == nil {
			continue
		}
		for _, name := range sr.Sensitive {
			out = value.AppendLeaves(out, sr.Config[name])
			out = value.AppendLeaves(out, sr.Outputs[name])
		}
	}
	return out
}

// sortChanges orders changes by level, then name. Built from byLevel's
// order over name-sorted resources they already are: checking costs O(n),
// a stable sort of thousands of changes far more.
func sortChanges(cs []plan.Change) {
	less := func(a, b plan.Change) int {
		if a.Level != b.Level {
			return a.Level - b.Level
		}
		return value.CompareNames(a.ResourceID, b.ResourceID)
	}
	if !slices.IsSortedFunc(cs, less) {
		slices.SortStableFunc(cs, less)
	}
}
