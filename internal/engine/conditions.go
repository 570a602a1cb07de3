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
	what := "Resource precondition failed"
	if post {
		what = "Resource postcondition failed"
	}
	for _, c := range r.Conditions {
		if c.Post == post {
			checkCondition(diags, c, what, lookup)
		}
	}
}

// checkOutputConditions checks the preconditions of cfg's outputs that
// read resources (those that read none were checked when the
// configuration was read), as checkConditions does.
func checkOutputConditions(diags *diag.Diagnostics, cfg *config.Config, lookup value.Lookup) {
	for _, o := range cfg.Outputs {
		for _, c := range o.Conditions {
			checkCondition(diags, c, "Module output value precondition failed", lookup)
		}
	}
	for _, c := range cfg.ModuleOutputConditions {
		checkCondition(diags, c, "Module output value precondition failed", lookup)
	}
}

// checkAssertions evaluates cfg's check block assertions with lookup and
// returns those that fail, and those that cannot be evaluated, as
// warnings ("file:line:col: Check block assertion failed: message"):
// OpenTofu reports them without refusing the plan. One not known yet
// (it reads what apply makes) passes.
func checkAssertions(cfg *config.Config, lookup value.Lookup) []string {
	var warnings diag.Diagnostics
	for _, c := range cfg.CheckAssertions {
		checkCondition(&warnings, c, "Check block assertion failed", lookup)
	}
	out := make([]string, 0, len(warnings))
	for _, w := range warnings {
		out = append(out, w.String())
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// checkCondition evaluates c with lookup: a diagnostic "what: message"
// when it fails, its own when it cannot be evaluated; nothing when it
// holds or is not known yet.
func checkCondition(diags *diag.Diagnostics, c *config.Condition, what string, lookup value.Lookup) {
	v, _, err := c.Check.Eval(lookup)
	if err != nil {
		var positioned diag.Diagnostics
		if errors.As(err, &positioned) {
			*diags = append(*diags, positioned...)
		} else {
			diags.Add(c.Pos, "%v", err)
		}
		return
	}
	if msg, _ := v.(string); msg != "" && msg != value.Unknown {
		diags.Add(c.Pos, "%s: %s", what, msg)
	}
}
