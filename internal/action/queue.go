package action

import (
	"context"
	"errors"
	"strings"

	"github.com/kyku/action/internal/review"
)

// mergeGroup answers merge_group (checks_requested) with apply:
// merge-queue: the queue's commit is planned and, when that plan is the
// pull request's reviewed plan and the apply rules hold, applied; any
// refusal or failure fails the job, so GitHub takes the pull request out
// of the queue. In the other modes the merge queue is not Kyku's to
// check: the run says so and passes.
func (r *run) mergeGroup(ctx context.Context, cmd Command) int {
	g := r.ev.MergeGroup
	if g == nil {
		return r.fail(errors.New("the merge_group event has no merge_group"))
	}
	if r.ev.Action != "checks_requested" {
		return r.skip(mergeGroupActionSkip(r.ev.Action))
	}
	if cmd == Plan {
		return r.skip(mergeGroupPlanSkip)
	}
	if refused := review.ApplyModeRefusal(r.settings(), review.TriggerMergeQueue); refused != nil {
		return r.skip(applyModeSkip(nothingToDo, refused))
	}
	if base := strings.TrimPrefix(g.BaseRef, "refs/heads/"); base != r.defaultBranch() {
		// Kyku applies what lands on the default branch only (as a push to
		// another branch is not applied): a queue into another branch —
		// one a pull request could be based on after its plan was
		// reviewed against the default branch — applies nothing.
		return r.skip(mergeGroupBaseSkip(base, r.defaultBranch()))
	}
	out, err := review.ApplyMergeGroup(ctx, r.deps, r.settings(), review.MergeGroup{
		HeadSHA: g.HeadSHA, HeadRef: g.HeadRef, BaseRef: g.BaseRef, Sender: r.ev.Sender.Login,
	})
	if err != nil {
		return r.fail(err)
	}
	code := r.applied(out, nil, true)
	if out.Refused != nil && code == ExitOK {
		// No pull request was found for the group: still not applied.
		r.a.Errorf("the merge group was not applied: %s", r.known().Scrub(out.Refused.Message))
		return ExitFail
	}
	return code
}
