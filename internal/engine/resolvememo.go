package engine

import (
	"reflect"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/value"
)

// A plan resolves each resource's properties up to three times: against
// state alone (settle), before its level is read (readLevel) and when it
// is planned (planLevelResource); at 50,000 resources that was a sixth
// of a plan's CPU. A resolution is a function of what its lookups
// answered (the values of the references read, and value.Applying's
// probe, which decides the impure functions): so settle keeps, per
// resource, its questions, their answers and the properties they gave,
// and a later resolution whose lookup answers every question the same
// takes those properties (a copy: its caller may keep or change them)
// without evaluating anything again. One answer differing (an object
// read from the cloud, a value planned, one known only after apply)
// resolves again as before.

// resolveMemo is settle's resolutions by resource name: written by
// settle (one goroutine, before any level is planned), then only read.
type resolveMemo map[string]*resolution

// resolution is one resolution of a resource's properties: the lookups
// it made, in order, and what it gave.
type resolution struct {
	asked   []lookupAnswer
	props   map[string]any
	unknown bool
}

type lookupAnswer struct {
	ref value.Ref
	v   any
	ok  bool
}

// resolveRecorded resolves r with lookup as resolveProps does, and
// returns the resolution to keep (nil when it failed).
func resolveRecorded(diags *diag.Diagnostics, r *config.Resource, lookup value.Lookup) (*resolution, map[string]any, bool, bool) {
	res := &resolution{}
	asking := func(ref value.Ref) (any, bool) {
		v, ok := lookup(ref)
		res.asked = append(res.asked, lookupAnswer{ref, v, ok})
		return v, ok
	}
	props, unknown, ok := resolveProps(diags, r, asking, nil)
	if !ok {
		return nil, props, unknown, ok
	}
	res.props, res.unknown = props, unknown
	return res, props, unknown, ok
}

// resolve is resolveProps, taking the resolution settle kept for r when
// lookup answers its questions as they were answered then.
func (m resolveMemo) resolve(diags *diag.Diagnostics, r *config.Resource, lookup value.Lookup, secret func(value.Ref) bool) (map[string]any, bool, bool) {
	if res := m[r.Name]; res != nil && res.sameAnswers(lookup) {
		return copyTree(res.props).(map[string]any), res.unknown, true
	}
	return resolveProps(diags, r, lookup, secret)
}

// sameAnswers reports whether lookup answers res's questions as they
// were answered.
func (res *resolution) sameAnswers(lookup value.Lookup) bool {
	for _, a := range res.asked {
		v, ok := lookup(a.ref)
		if ok != a.ok || !reflect.DeepEqual(v, a.v) {
			return false
		}
	}
	return true
}

// copyTree copies v's maps and lists (as a resolution makes them anew),
// sharing the rest.
func copyTree(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = copyTree(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyTree(e)
		}
		return out
	}
	return v
}
