package engine

import (
	"reflect"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/state"
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
	// basis is what settle digested of props (nil: not digested), so
	// that the later checks of an untouched resource against its last
	// apply take its digest rather than make it twice more.
	basis *state.Basis
	// given says props were handed to the plan of a touched resource,
	// to keep and change (handOver): a later take (a plan made again,
	// with more read) resolves anew.
	given bool
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
// lookup answers its questions as they were answered then (a copy: the
// caller may keep or change it).
func (m resolveMemo) resolve(diags *diag.Diagnostics, r *config.Resource, lookup value.Lookup, secret func(value.Ref) bool) (map[string]any, bool, bool) {
	props, unknown, ok, kept := m.take(diags, r, lookup, secret)
	if kept != nil {
		props = copyTree(props).(map[string]any)
	}
	return props, unknown, ok
}

// take is resolve without the copy: when the properties are settle's
// resolution's, kept is that resolution and they are to read only (the
// caller takes them with handOver before it keeps or changes them; for
// a resource taken from state it does neither). A plan of thousands of
// untouched resources copied each one's twice for nothing, and one of
// thousands of creates each one's once.
func (m resolveMemo) take(diags *diag.Diagnostics, r *config.Resource, lookup value.Lookup, secret func(value.Ref) bool) (props map[string]any, unknown, ok bool, kept *resolution) {
	if res := m[r.Name]; res != nil && !res.given && res.sameAnswers(lookup) {
		return res.props, res.unknown, true, res
	}
	props, unknown, ok = resolveProps(diags, r, lookup, secret)
	return props, unknown, ok, nil
}

// basisOf is kept's basis: settle's digest of the same properties (nil
// when there is none).
func (kept *resolution) basisOf() *state.Basis {
	if kept == nil {
		return nil
	}
	return kept.basis
}

// handOver gives kept's properties to the caller to keep and change:
// the plan of a touched resource takes them as they are rather than a
// copy (its only other user would be a plan made again, which resolves
// anew). Only the goroutine planning kept's resource calls it, after its
// last read of them.
func (kept *resolution) handOver() map[string]any {
	kept.given = true
	return kept.props
}

// sameAnswers reports whether lookup answers res's questions as they
// were answered.
func (res *resolution) sameAnswers(lookup value.Lookup) bool {
	for _, a := range res.asked {
		v, ok := lookup(a.ref)
		if ok != a.ok || !deepEqual(v, a.v) {
			return false
		}
	}
	return true
}

// deepEqual is reflect.DeepEqual(a, b), without reflection for the
// canonical values lookups answer (maps, lists, strings, numbers, bools,
// nil): checking the answers of 50,000 kept resolutions through
// reflection was a twentieth of a plan's CPU.
func deepEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case map[string]any:
		y, ok := b.(map[string]any)
		switch {
		case !ok || (x == nil) != (y == nil) || len(x) != len(y):
			return false
		case reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer():
			return true // the same map, as DeepEqual says
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !deepEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		switch {
		case !ok || (x == nil) != (y == nil) || len(x) != len(y):
			return false
		case len(x) > 0 && &x[0] == &y[0]:
			return true // the same elements, as DeepEqual says
		}
		for i := range x {
			if !deepEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
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
