package tfconfig

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/kyku/action/internal/config"
)

// outputConditions checks the preconditions of the outputs of mi and of
// every module instance it calls, as OpenTofu does at plan: one that
// reads no resource now (an error when it fails); one of a root output
// that reads resources goes with the output (config.Output.Conditions),
// which the plan checks once they are known. A module's output whose
// precondition reads resources is not checked.
func (ev *evaluator) outputConditions(mi *modInst, cfg *config.Config) {
	for _, name := range sortedKeys(mi.mod.Outputs) {
		o := mi.mod.Outputs[name]
		for _, rule := range o.Preconditions {
			sc := scope{mi: mi}
			c := newCondition(sc, rule)
			if len(c.refs) == 0 {
				if ok, msg, diags := sc.check(rule, nil); diags.HasErrors() {
					ev.diags = append(ev.diags, diags...)
				} else if !ok {
					ev.diags = append(ev.diags, outputConditionFailed(rule, msg))
				}
				continue
			}
			if mi.parent != nil {
				cfg.ModuleOutputConditions = append(cfg.ModuleOutputConditions, &config.Condition{Check: c, Pos: pos(rule.Condition.Range())})
				continue
			}
			for _, out := range cfg.Outputs {
				if out.Name == name {
					out.Conditions = append(out.Conditions, &config.Condition{Check: c, Pos: pos(rule.Condition.Range())})
				}
			}
		}
	}
	for _, name := range sortedKeys(mi.mod.Calls) {
		for _, child := range mi.expandCall(name).children {
			ev.outputConditions(child, cfg)
		}
	}
}

// outputConditionFailed is OpenTofu's error for an output's failed
// precondition.
func outputConditionFailed(rule *CheckRule, msg string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Module output value precondition failed", Detail: msg, Subject: rule.Condition.Range().Ptr()}
}
