package tfconfig

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/lang/ctyvalue"
	"github.com/kyku/action/internal/lang/marks"
)

// Kyku's canonical values (package value) and cty values meet here.
// Unknown values are value.Unknown on Kyku's side, a string holding it
// unknown as a whole; numbers are float64.

// canonical is v as a canonical value, marks dropped; unknown says it
// holds parts not known yet (value.Unknown there).
func canonical(v cty.Value) (out any, unknown bool) { return ctyvalue.Canonical(v) }

// fromCanonical is the cty value of a canonical one (ctyvalue).
func fromCanonical(v any) cty.Value { return ctyvalue.FromCanonical(v) }

// objectWith is the object of a resource instance's attributes vals,
// with every name of want it lacks null (state leaves null attributes
// out; an expression reading one reads null).
func objectWith(vals map[string]any, want []string) cty.Value {
	attrs := make(map[string]cty.Value, len(vals)+len(want))
	for k, e := range vals {
		attrs[k] = fromCanonical(e)
	}
	for _, name := range want {
		if _, ok := attrs[name]; !ok {
			attrs[name] = cty.NullVal(cty.DynamicPseudoType)
		}
	}
	if len(attrs) == 0 {
		return cty.EmptyObjectVal
	}
	return cty.ObjectVal(attrs)
}

// sensitiveIn reports whether v or a value in it is sensitive.
func sensitiveIn(v cty.Value) bool { return marks.Contains(v, marks.Sensitive) }

// invalid marks the placeholder of a value whose evaluation failed (its
// error reported): what derives from it is unknown for that reason, and
// says nothing more (a count read from it is not "unknown until apply").
type invalidMark struct{}

var invalid = invalidMark{}

// failed is the placeholder of a failed evaluation.
func failed(ty cty.Type) cty.Value { return cty.UnknownVal(ty).Mark(invalid) }

// fromFailure reports whether v derives from a failed evaluation.
func fromFailure(v cty.Value) bool {
	if !v.ContainsMarked() {
		return false
	}
	_, pvms := v.UnmarkDeepWithPaths()
	for _, pvm := range pvms {
		if _, ok := pvm.Marks[invalid]; ok {
			return true
		}
	}
	return false
}
