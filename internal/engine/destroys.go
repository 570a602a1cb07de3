package engine

import (
	"slices"
	"sort"

	"github.com/kyku/action/internal/graph"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// forgetRemoved is the reason of a change that forgets what the
// configuration says was removed without destroying it.
const forgetRemoved = "removed from the configuration with lifecycle destroy = false: the object stays in the cloud, out of state"

// forgetSkipDestroy is the reason of a change that forgets, rather than
// destroys, an object whose resource said lifecycle destroy = false when
// it was last applied (OpenTofu 1.12), unless a removed block says to
// destroy it.
const forgetSkipDestroy = "its lifecycle said destroy = false when last applied: the object stays in the cloud, out of state"

// LeftInCloud lists what plan p forgets because its lifecycle said
// destroy = false when it was last applied: objects a destroy leaves in
// the cloud, out of state.
func LeftInCloud(p *plan.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		if c.Action == plan.Forget && c.Reason == forgetSkipDestroy {
			out = append(out, c.ResourceID)
		}
	}
	return out
}

// destroyChanges returns destroy (or forget: gone from the cloud, or
// what forget names) changes for every state resource that keep says is
// not kept, ordered by reverse level of the
// state's own dependency graph, then name. objs, when given, holds what
// discovery read: a stale provider ID it resolved by name is destroyed by
// the object's real ID.
func (e *Engine) destroyChanges(st *state.File, keep func(string) bool, objs map[string]provider.Object, gone map[string]bool, forget, destroy func(string) bool) []plan.Change {
	var victims []string
	for name := range st.Resources {
		if !keep(name) {
			victims = append(victims, name)
		}
	}
	if len(victims) == 0 {
		return nil
	}
	slices.SortFunc(victims, value.CompareNames)
	g := graph.NewSized(len(st.Resources))
	for _, name := range st.Names() {
		g.AddNode(name)
		for _, d := range st.Resources[name].Dependencies {
			if st.Resources[d] != nil {
				g.AddEdge(name, d)
			}
		}
	}
	levels, err := g.Levels()
	if err != nil {
		levels = map[string]int{}
	}
	out := make([]plan.Change, 0, len(victims))
	for _, name := range victims {
		sr := st.Resources[name]
		ch := plan.Change{
			Action: plan.Destroy, ResourceID: name, Type: sr.Type, Level: levels[name],
			ProviderID: sr.ProviderID, CloudName: sr.CloudName, Dependencies: sr.Dependencies,
		}
		switch {
		case gone[name]:
			ch.Action, ch.Reason = plan.Forget, "already gone from the cloud"
		case forget != nil && forget(name):
			ch.Action, ch.Reason = plan.Forget, forgetRemoved
		case sr.SkipDestroy && (destroy == nil || !destroy(name)):
			ch.Action, ch.Reason = plan.Forget, forgetSkipDestroy
		}
		adopt(&ch, sr, objs)
		if o, ok := objs[name]; ok && ch.Action == plan.Destroy {
			ch.PriorDigests = attrDigests(o) // apply reads it again before destroying it (precheck.go)
		}
		out = append(out, ch)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Level != out[j].Level {
			return out[i].Level > out[j].Level
		}
		return value.CompareNames(out[i].ResourceID, out[j].ResourceID) < 0
	})
	return out
}
