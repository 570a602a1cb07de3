package tfconfig

import (
	"encoding/json"

	"github.com/hashicorp/hcl/v2"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/value"
)

// condition is a precondition or postcondition of a resource instance as
// the engine checks it (config.Condition): evaluated, it is "" when the
// condition holds or is not known yet, else its error message.
type condition struct {
	sc   scope
	rule *CheckRule
	refs []value.Ref
}

var _ value.Expr = (*condition)(nil)

// newCondition is rule evaluated in sc, reading the resources its
// condition and error message read.
func newCondition(sc scope, rule *CheckRule) *condition {
	travs := append(rule.Condition.Variables(), rule.ErrorMessage.Variables()...)
	sc.reportRefs(travs) // evaluated as the plan or the apply checks it
	return &condition{sc: sc, rule: rule, refs: sc.refsOf(travs)}
}

func (c *condition) Refs() []value.Ref { return c.refs }

func (c *condition) Eval(lookup value.Lookup) (any, bool, error) {
	ok, msg, diags := c.sc.check(c.rule, lookup)
	if diags.HasErrors() {
		return "", false, toDiag(diags, c.sc.mi.ev.files)
	}
	if ok {
		return "", false, nil
	}
	return msg, false, nil
}

func (c *condition) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"condition": c.rule.DeclRange.String(), "instance": c.sc.mi.prefix() + c.sc.key.suffix()})
}

// conditions are r's preconditions and postconditions for its instance
// in sc (self, in a postcondition, is the instance at addr); what they
// read becomes what the instance depends on.
func (ev *evaluator) conditions(sc scope, r *Resource, addr string, cr *config.Resource) {
	for _, list := range []struct {
		rules []*CheckRule
		post  bool
	}{{r.Preconditions, false}, {r.Postconditions, true}} {
		for _, rule := range list.rules {
			csc := sc
			if list.post {
				csc.self = addr
			}
			c := newCondition(csc, rule)
			cr.Conditions = append(cr.Conditions, &config.Condition{Post: list.post, Check: c, Pos: pos(rule.Condition.Range())})
			for _, ref := range c.refs {
				if ref.Resource != addr {
					cr.DependsOn = append(cr.DependsOn, ref.Resource)
				}
			}
			// What needs no resource is checked now, as OpenTofu's
			// validate does.
			if len(c.refs) == 0 && !list.post {
				if ok, msg, diags := csc.check(rule, nil); diags.HasErrors() {
					ev.diags = append(ev.diags, diags...)
				} else if !ok {
					ev.diags = append(ev.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Resource precondition failed", Detail: msg, Subject: rule.Condition.Range().Ptr()})
				}
			}
		}
	}
}
