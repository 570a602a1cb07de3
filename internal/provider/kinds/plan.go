package kinds

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/kyku/action/internal/diff"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/schema"
)

// Planner plans the changes of Kyku's types on one cloud: the object's
// properties against the configured ones, as Kyku's schema compares them
// (diff.Compared), every changed property the cloud's Rules (else the
// schema) say cannot change in place forcing a replace, then the cloud's
// Check on what the values decide. A zero Planner follows the schema and
// checks nothing.
type Planner struct {
	// Rules are the cloud's rules of a type (provider.TypeSchema.Rules).
	Rules func(typ string) provider.Rules
	// Check is the cloud's word on one change by its values (a resize to
	// a smaller disk, a storage change smaller than the cloud allows): it
	// may add replaces, refuse, or ask for create-before-destroy, and may
	// read the cloud, never change it. It is asked about every create and
	// every change that changes something (or is asked to replace).
	Check func(ctx context.Context, c Change) (provider.ChangePlan, error)
}

// Change is a change the cloud's Check is asked about.
type Change struct {
	// ChangeRequest is the request planned; its Prior is the object's
	// properties as read, the last applied value where the cloud cannot
	// report one.
	provider.ChangeRequest
	// Changed lists the top-level properties whose value differs from
	// Prior, sorted; every property for a create.
	Changed []string
}

// PlanChange plans req (provider.Planner). Its answer's Planned holds the
// two sides as compared (PriorValues nil for a create); Replace lists the
// rules' replaces first, then the Check's; a create answers no replaces.
func (pl Planner) PlanChange(ctx context.Context, req provider.ChangeRequest) (provider.ChangePlan, error) {
	t, ok := schema.Lookup(req.Type)
	if !ok {
		return provider.ChangePlan{}, fmt.Errorf("%s is not one of Kyku's types", req.Type)
	}
	if req.ID == "" {
		out, err := pl.check(ctx, Change{ChangeRequest: req, Changed: slices.Sorted(maps.Keys(req.Properties))})
		out.Replace, out.Planned = nil, &provider.Planned{Values: req.Properties}
		return out, err
	}
	var rules provider.Rules
	if pl.Rules != nil {
		rules = pl.Rules(req.Type)
	}
	rule := func(prop string) (bool, string) {
		if r, ok := rules[prop]; ok {
			return r.Replace, r.Reason
		}
		return t.Immutable(prop), ""
	}
	prior, desired := diff.Compared(diff.Input{Type: t, Desired: req.Properties, Actual: req.Prior, Last: req.Applied, IgnoreChanges: req.IgnoreChanges})
	var changed []string
	var forced []provider.Forced
	for _, pc := range diff.Values(prior, desired, nil) {
		name := diff.TopLevel(pc.Path)
		if slices.Contains(changed, name) {
			continue
		}
		changed = append(changed, name)
		if replace, reason := rule(name); replace {
			forced = append(forced, provider.Forced{Path: name, Reason: reason})
		}
	}
	var out provider.ChangePlan
	if len(changed) > 0 || req.Replace {
		c := Change{ChangeRequest: req, Changed: changed}
		c.Prior = make(map[string]any, len(req.Prior)+len(req.Applied))
		maps.Copy(c.Prior, req.Applied) // where the cloud cannot report a value: the last applied one
		maps.Copy(c.Prior, req.Prior)
		var err error
		if out, err = pl.check(ctx, c); err != nil {
			return out, err
		}
	}
	out.Replace = append(forced, out.Replace...)
	out.Planned = &provider.Planned{PriorValues: prior, Values: desired}
	return out, nil
}

func (pl Planner) check(ctx context.Context, c Change) (provider.ChangePlan, error) {
	if pl.Check == nil {
		return provider.ChangePlan{}, nil
	}
	return pl.Check(ctx, c)
}
