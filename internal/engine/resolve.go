package engine

import (
	"errors"
	"maps"
	"slices"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/value"
)

// resolveProps resolves r's properties with lookup, as value.Resolve
// does, and reports at its position each property holding a reference
// whose path does not apply to the value it reads (an index past the
// end of a list, a key its map lacks): ok is false then, and r cannot be
// planned or applied.
//
// secret says which references read a sensitive value: their errors say
// nothing of its content (value.RefError.Masked).
func resolveProps(diags *diag.Diagnostics, r *config.Resource, lookup value.Lookup, secret func(value.Ref) bool) (props map[string]any, unknown, ok bool) {
	v, unknown, err := value.ResolveChecked(r.Properties, lookup)
	if err == nil {
		return v.(map[string]any), unknown, true
	}
	// Which properties: each at its position, in order (the rare path).
	for _, k := range slices.Sorted(maps.Keys(r.Properties)) {
		if _, _, err := value.ResolveChecked(r.Properties[k], lookup); err != nil {
			var positioned diag.Diagnostics
			if errors.As(err, &positioned) {
				*diags = append(*diags, positioned...) // an expression's: positioned already
				continue
			}
			pos, found := r.PropPos.Nearest(k)
			if !found {
				pos = r.Pos
			}
			diags.Add(pos, "resource %s: property %q: %s", value.QuoteName(r.Name), k, refErrText(err, secret))
		}
	}
	return nil, unknown, false
}

// refErrText is err's text; for a reference to a sensitive value (secret),
// without the value's content.
func refErrText(err error, secret func(value.Ref) bool) string {
	return refErr(err, secret).Error()
}

// refErr is err; for a reference to a sensitive value (secret), an error
// saying nothing of the value's content.
func refErr(err error, secret func(value.Ref) bool) error {
	var re *value.RefError
	if secret != nil && errors.As(err, &re) && secret(re.Ref) {
		return errors.New(re.Masked())
	}
	return err
}

// secretIn says which references read an attribute that sensitive (per
// resource, its sensitive top-level attributes) marks.
func secretIn(sensitive map[string][]string) func(value.Ref) bool {
	return func(r value.Ref) bool { return slices.Contains(sensitive[r.Resource], r.Attr) }
}

// plannedValue is what a reference to a resource whose provider keeps its
// own state, or to a data source, reads: an attribute (attr "" or "id":
// its ID) of vals, or all of them (value.AllAttrs); unknown (ok false)
// when the plan knows it only after apply.
func plannedValue(vals map[string]any, attr string) (any, bool) {
	switch attr {
	case value.AllAttrs:
		return vals, true
	case "":
		attr = "id"
	}
	v, ok := vals[attr]
	switch {
	case !ok:
		return nil, true // null: left out of the values (validation refused any attribute the schema lacks)
	case v == value.Unknown:
		return nil, false
	}
	return v, true
}

// wholeObject is what a reference reading a whole object (value.AllAttrs)
// reads of an object whose values are attrs (a Kyku type's: what was
// last applied, then its outputs) and whose ID is id.
func wholeObject(id string, attrs ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, a := range attrs {
		maps.Copy(out, a)
	}
	out["id"] = id
	return out
}
