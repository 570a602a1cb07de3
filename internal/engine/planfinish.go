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
	destroys := x.e.destroyChanges(x.st, func(name string) bool { return x.cfg.Resource(name) != nil || !x.keep(name) }, x.objs, x.gone, x.cfg.Forgets, x.cfg.RemovedDestroys)
	x.e.refuseKeptDeletes(&x.diags, x.cfg, x.st, x.p.Changes, destroys)
	checkCloudNames(&x.diags, x.cfg, x.st, x.p.Changes)
	refuseChangedCountReads(&x.diags, x.cfg, x.p.Changes)
	refuseProtectedDestroys(&x.diags, x.st, x.cfg, destroys)
	return destroys
}

// refuseProtectedDestroys refuses the destroys of protected resources:
// protected by what state recorded of the last apply's protect (a
// Terraform block's prevent_destroy), so that a change removing a block,
// or setting its prevent_destroy off in the same plan, destroys nothing
// (OpenTofu forgets the protection with the block: a pull request could
// destroy a database by deleting its lines); also by the configuration's.
// A Terraform configuration's resource (its address has a '.') is
// refused in OpenTofu's words, at its block when it has one.
func refuseProtectedDestroys(diags *diag.Diagnostics, st *state.File, cfg *config.Config, changes []plan.Change) {
	for _, ch := range changes {
		if ch.Action != plan.Destroy {
			continue
		}
		var r *config.Resource
		if cfg != nil {
			r = cfg.Resource(ch.ResourceID)
		}
		if !st.Resources[ch.ResourceID].Protect && (r == nil || !r.Protect) {
			continue
		}
		switch {
		case strings.IndexByte(ch.ResourceID, '.') < 0:
			diags.Add(diag.Pos{}, "resource %s is protected (protect: true) and cannot be destroyed; set protect: false and apply first", value.QuoteName(ch.ResourceID))
		case r != nil:
			diags.Add(r.Pos, "Resource instance cannot be destroyed: Resource instance %s has prevent_destroy set, but the plan calls for it to be destroyed. %s", ch.ResourceID, disableOrExclude(ch.ResourceID))
		case cfg != nil:
			diags.Add(diag.Pos{}, "Resource instance cannot be destroyed: Resource instance %s had prevent_destroy set when last applied, and the configuration no longer has it: Kyku keeps the protection (OpenTofu would destroy it). To proceed, restore its block with prevent_destroy = false and apply, then remove it.", ch.ResourceID)
		default: // kyku destroy
			diags.Add(diag.Pos{}, "Resource instance cannot be destroyed: Resource instance %s has prevent_destroy set, but the plan calls for it to be destroyed. To proceed, set prevent_destroy = false and apply first.", ch.ResourceID)
		}
	}
}

// disableOrExclude is how OpenTofu's refusal of a destroy prevent_destroy
// protects says to proceed, for the instance name: its resource excluded.
func disableOrExclude(name string) string {
	return fmt.Sprintf("To proceed, either disable prevent_destroy for this resource or exclude instances of this resource from this round using --exclude=%q.", value.BaseName(name))
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
	p.Warnings = slices.Concat(x.cfg.Warnings, x.warnings, checkAssertions(x.cfg, x.lookup))
	p.OutputChanges = outputChanges(x.cfg, x.st, x.lookup)
	p.UnchangedOutputs = unchangedOutputs(x.cfg, x.st, x.lookup, p.OutputChanges)
	if x.targets != nil {
		p.KeptOutputs = outputsOutside(x.cfg, x.targets)
		if x.opts.Limited {
			p.KeptOutputs = slices.Clone(x.opts.KeptOutputs)
		}
		outside := func(oc plan.OutputChange) bool { return slices.Contains(p.KeptOutputs, oc.Name) }
		p.OutputChanges = slices.DeleteFunc(p.OutputChanges, outside)
		p.UnchangedOutputs = slices.DeleteFunc(p.UnchangedOutputs, outside)
	}
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
