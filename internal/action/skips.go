package action

import (
	"fmt"
	"strings"

	"github.com/kyku/action/internal/markdown"
	"github.com/kyku/action/internal/review"
)

// Why a run did nothing, as the log's notice and the job summary say it
// (summarySkipped), one render function each; testdata/skips.md holds
// every one. A skip is a title and a reason.
type skipped struct{ title, reason string }

// Titles of skips.
const (
	nothingToDo = "Kyku had nothing to do"
	didNotRun   = "Kyku did not run"
	didNotApply = "Kyku did not apply"
	didNotPlan  = "Kyku did not plan"
)

// forkSkip: a pull request from a fork runs with a read-only token.
func forkSkip(number int, headRepo string) skipped {
	return skipped{didNotRun, review.ForkNotPlanned(number, headRepo) +
		" (Its own workflow runs get a read-only token and no secrets from GitHub anyway, so Kyku could not read the state, plan or comment here.)"}
}

// dependabotSkip: a pull request by Dependabot runs with a read-only token.
func dependabotSkip(number int) skipped {
	return skipped{didNotRun, fmt.Sprintf("Pull request #%d was opened by Dependabot, whose workflow runs get a read-only token and no secrets, so Kyku cannot plan it here. "+
		"Someone with `plan-permission` can comment `/kyku plan` on the pull request: the comment's workflow runs with this repository's credentials.", number)}
}

// eventSkip: an event that does not trigger Kyku.
func eventSkip(event string) skipped {
	return skipped{nothingToDo, "Event " + markdown.Code(event) + " does not trigger Kyku (pull_request, push, issue_comment, merge_group, schedule and workflow_dispatch do)."}
}

// pullRequestActionSkip: a pull_request action Kyku does not plan on.
func pullRequestActionSkip(number int, action string) skipped {
	return skipped{nothingToDo, fmt.Sprintf("Pull request #%d was %s: Kyku plans when a pull request is opened, pushed to, reopened or marked ready for review.",
		number, strings.ReplaceAll(action, "_", " "))}
}

// dispatchedForkSkip: a dispatched plan of a pull request from a fork.
func dispatchedForkSkip(number int, headRepo string) skipped {
	return skipped{didNotPlan, review.ForkNotPlanned(number, headRepo)}
}

// dispatchedStateSkip: a dispatched plan of a pull request not open.
func dispatchedStateSkip(number int, state string) skipped {
	return skipped{nothingToDo, fmt.Sprintf("Pull request #%d is %s: it is not planned.", number, state)}
}

// ignoredSkip: review ignored the comment (what says which: "comment",
// "dispatched command").
func ignoredSkip(what, why string) skipped {
	return skipped{nothingToDo, "The " + what + " was ignored: " + why + "."}
}

// pushSkip: a push to another branch than the default one.
func pushSkip(ref, defaultBranch string) skipped {
	return skipped{nothingToDo, "The push to " + markdown.Code(ref) + " is not to the default branch " + markdown.Code(defaultBranch) +
		": Kyku applies when a pull request is merged into it."}
}

// applyModeSkip: the apply mode does not let this trigger apply.
func applyModeSkip(title string, r *review.Refusal) skipped { return skipped{title, r.Message} }

// mergeGroupActionSkip: a merge_group action other than checks_requested.
func mergeGroupActionSkip(action string) skipped {
	return skipped{nothingToDo, "merge_group " + action + ": Kyku checks a merge group when its checks are requested."}
}

// mergeGroupPlanSkip: command plan on a merge group.
var mergeGroupPlanSkip = skipped{nothingToDo, "Input command is plan: the merge queue's commit is not applied."}

// mergeGroupBaseSkip: a merge group into another branch than the default.
func mergeGroupBaseSkip(base, defaultBranch string) skipped {
	return skipped{didNotApply, "The merge group merges into " + markdown.Code(base) + ", not the default branch " + markdown.Code(defaultBranch) +
		": Kyku applies only what lands on the default branch, so nothing was applied."}
}

// noProjectSkip: a pull request that touches no Terraform root, in a
// repository without kyku.yaml at input config.
func noProjectSkip(number int, config string) skipped {
	return skipped{nothingToDo, fmt.Sprintf("Pull request #%d changes no Terraform root (no *.tf* file of one, nor of a module one calls), and the repository has no Kyku configuration at %s (input config).", number, markdown.Code(config))}
}
