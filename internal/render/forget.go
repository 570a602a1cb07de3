package render

import (
	"strings"

	"github.com/kyku/action/internal/plan"
)

// forgetLine says which interrupted creates' intents the plan drops
// (plan.Plan.ForgetInterrupted), or is "" when none.
func forgetLine(p *plan.Plan) string {
	if len(p.ForgetInterrupted) == 0 {
		return ""
	}
	return "Forgetting, as requested (--forget-interrupted): the interrupted create of " +
		oneLine(strings.Join(p.ForgetInterrupted, ", ")) + " made no object; its intent is dropped from state."
}

// changesResources reports whether p changes a resource, a state entry
// or an output, not only drops intents.
func changesResources(p *plan.Plan) bool {
	if len(p.ForgetInterrupted) == 0 {
		return p.HasChanges()
	}
	q := *p
	q.ForgetInterrupted = nil
	return q.HasChanges()
}
