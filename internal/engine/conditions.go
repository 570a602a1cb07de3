package engine

import (
	"errors"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/value"
)

// checkConditions checks r's preconditions (post false: before it is
// planned, its configuration resolved) or postconditions (post true: its
// planned values known), each read with lookup: one that fails is a
// diagnostic at the condition, in OpenTofu's words; one not known yet
// passes.
func checkConditions(diags *diag.Diagnostics, r *config.Resource, post bool, lookup value.Lookup) {
	for _, c := range r.Conditions {
		if c.Post != post {
			continue
		}
		v, _, err := c.Check.Eval(lookup)
		if err != nil {
			var positioned diag.Diagnostics
			if errors.As(err, &positioned) {
				*diags = append(*diags, positioned...)
			} else {
				diags.Add(c.Pos, "%v", err)
			}
			continue
		}
		msg, _ := v.(string)
		if msg == "" || msg == value.Unknown {
			continue
		}
		what := "Resource precondition failed"
		if post {
			what = "Resource postcondition failed"
		}
		diags.Add(c.Pos, "%s: %s", what, msg)
	}
}
