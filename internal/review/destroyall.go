package review

import (
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
)

// A pull request that empties (or truncates) the configuration plans to
// destroy everything in the environment. Its plan is made and shown, led by
// a warning (render.PlanComment), and applied only with the explicit word
// `/kyku apply --allow-destroy-all`, from someone who may apply: a merge or
// the merge queue carries no such word and never applies it.

// reviewPlan plans a pull request: a plan that destroys everything is made
// so that it can be shown with its warning; applying it needs the word.
var reviewPlan = engine.PlanOptions{AllowDestroyAll: true}

// allowDestroyAll reports whether this apply carries the explicit word.
func (a *applier) allowDestroyAll() bool {
	return a.req.AllowDestroyAll && !a.req.OnMerge && !a.req.Queue
}

// destroyAllRefusal says why fresh, a plan that destroys every resource
// because the configuration at the head has none, may not be applied by
// this request (nil when it is not such a plan, or the word was given).
func (a *applier) destroyAllRefusal(fresh *plan.Plan) *Refusal {
	if !fresh.DestroysAll() || a.allowDestroyAll() {
		return nil
	}
	return refusal(RequireDestroyAll, destroyAllText(a.request(), fresh.Counters.Destroy))
}
