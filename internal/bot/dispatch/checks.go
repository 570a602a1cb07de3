package dispatch

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/markdown"
)

// What the check run of a dispatched target says (execution: actions),
// one render function each; testdata/dispatch-checks.md holds every one.
// The watch names the check run and adds its dispatch ID and link.

// IDInput is the workflow_dispatch input that tells the bot's dispatches
// apart; the workflow's run-name must show it.
const IDInput = "dispatch-id"

// dispatchView is what a dispatched target's check run speaks of: the
// dispatch, the App's account (the only one whose runs count), the target,
// and the setting of the store without which a watch is not taken over.
type dispatchView struct {
	d      jobs.Dispatch
	self   string
	target string
	store  string
}

func (v dispatchView) runLink() string {
	if v.d.RunURL == "" {
		return "(not found)"
	}
	return markdown.Link("#"+strconv.FormatInt(v.d.Run, 10), v.d.RunURL)
}

// what is "`kyku.yml` on `refs/heads/main` for `infra/prod`".
func (v dispatchView) what() string {
	return markdown.Code(v.d.Workflow) + " on " + markdown.Code(v.d.Ref) + " for " + markdown.Code(v.target)
}

func completedCheck(c github.CheckConclusion, title, summary string) github.CheckRun {
	return github.CheckRun{Status: github.CheckCompleted, Conclusion: c, Title: title, Summary: summary}
}

// dispatching: the check run opened before the dispatch is sent.
func (v dispatchView) dispatching() github.CheckRun {
	return github.CheckRun{Status: github.CheckQueued, Title: "Dispatching " + v.d.Workflow,
		Summary: "Kyku dispatches " + v.what() + " with dispatch ID " + markdown.Code(v.d.ID) + " and follows the run here: " +
			"this check ends with the run's own result.\n"}
}

// running: the run is queued or running (status, as GitHub says it).
func (v dispatchView) running(run github.WorkflowRun) github.CheckRun {
	status := github.CheckInProgress
	switch run.Status {
	case "queued", "waiting", "pending", "requested":
		status = github.CheckQueued
	}
	return github.CheckRun{Status: status,
		Title:   fmt.Sprintf("Workflow run #%d %s", run.Number, strings.ReplaceAll(run.Status, "_", " ")),
		Summary: "Kyku dispatched " + v.what() + "; its run is " + v.runLink() + ": " + markdown.Code(run.Status) + ".\n"}
}

// completed: the run ended; its conclusion is the check run's (failure
// for one a check run cannot have), its jobs listed.
func (v dispatchView) completed(run github.WorkflowRun, runJobs []github.WorkflowJob) github.CheckRun {
	conclusion, ok := github.ParseCheckConclusion(run.Conclusion)
	if !ok {
		conclusion = github.CheckFailure // startup_failure, or one GitHub adds later
	}
	var sb strings.Builder
	sb.WriteString("Kyku dispatched " + v.what() + " (dispatch ID " + markdown.Code(v.d.ID) + "). Run " + v.runLink() +
		" ended: **" + markdown.Code(run.Conclusion) + "**.\n\n")
	if len(runJobs) > 0 {
		sb.WriteString("| Job | Result |\n|---|---|\n")
		for _, j := range runJobs {
			res := j.Conclusion
			if res == "" {
				res = j.Status
			}
			sb.WriteString("| " + markdown.Cell(j.Name) + " | " + markdown.Cell(res) + " |\n")
		}
		sb.WriteString("\n")
	}
	sb.WriteString("This is what GitHub's Actions API says of the run, read with the App's token; nothing the run wrote is taken for its result.\n")
	return completedCheck(conclusion, fmt.Sprintf("Workflow run #%d: %s", run.Number, run.Conclusion), sb.String())
}

// refused: GitHub refused the dispatch, answering why.
func (v dispatchView) refused(why string) github.CheckRun {
	return completedCheck(github.CheckFailure, "GitHub refused to dispatch "+v.d.Workflow,
		"Kyku asked GitHub Actions to run "+v.what()+", and GitHub answered "+markdown.Code(why)+".\n\n"+
			"The workflow must exist on the default branch, be enabled, have a `workflow_dispatch` trigger declaring the inputs "+
			"`command`, `config`, `environment`, `project`, `pr`, `sha`, `requested-by` and `"+IDInput+"`, and show "+
			markdown.Code("${{ inputs."+IDInput+" }}")+" in its `run-name`; the App needs the *Actions: write* permission.\n")
}

// claimedTwice: n runs of the App's show the dispatch ID.
func (v dispatchView) claimedTwice(n int) github.CheckRun {
	return completedCheck(github.CheckFailure, "More than one run claims this dispatch", fmt.Sprintf(
		"%d runs of %s started by %s show dispatch ID %s; Kyku dispatched one. It trusts none of them: re-run the command.\n",
		n, markdown.Code(v.d.Workflow), markdown.Code(v.self), markdown.Code(v.d.ID)))
}

// notStarted: no run of the dispatch appeared within after.
func (v dispatchView) notStarted(after time.Duration) github.CheckRun {
	return completedCheck(github.CheckFailure, "The workflow run did not start", fmt.Sprintf(
		"GitHub accepted the dispatch of %s on %s (dispatch ID %s) %s ago, but no run of it started by %s has appeared. "+
			"Check that GitHub Actions are enabled for this repository and the workflow is enabled, and that its "+
			"`run-name` shows the input %s (for example `run-name: kyku ${{ inputs.%s }}`), which is how Kyku finds the run it started.\n",
		markdown.Code(v.d.Workflow), markdown.Code(v.d.Ref), markdown.Code(v.d.ID), after, markdown.Code(v.self),
		markdown.Code(IDInput), IDInput))
}

// gone: the run was deleted before it ended.
func (v dispatchView) gone() github.CheckRun {
	return completedCheck(github.CheckFailure, "The workflow run is gone", "Run "+v.runLink()+" was deleted before it ended.\n")
}

// timedOut: the run was still status after was watched for after.
func (v dispatchView) timedOut(status string, after time.Duration) github.CheckRun {
	return completedCheck(github.CheckTimedOut, "The workflow run did not end in time", fmt.Sprintf(
		"Run %s was still %s %s after it was dispatched; Kyku stopped watching it.\n", v.runLink(), markdown.Code(status), after))
}

// notOurs: the App's run of the dispatch ran commit ran, not the default
// branch's head when Kyku dispatched.
func (v dispatchView) notOurs(ran string) github.CheckRun {
	head := v.d.HeadSHA
	if head == "" {
		head = "(not recorded)"
	}
	return completedCheck(github.CheckFailure, "The workflow run is not the default branch's", fmt.Sprintf(
		"Run %s shows dispatch ID %s, but it ran commit %s, not %s, the head of %s when Kyku dispatched %s. "+
			"Its result is not Kyku's: a tag or another ref named like the default branch ran instead. Re-run the command.\n",
		v.runLink(), markdown.Code(v.d.ID), markdown.Code(ran), markdown.Code(head), markdown.Code(v.d.Ref), markdown.Code(v.d.Workflow)))
}

// rerun: the run was re-run by someone else than the App.
func (v dispatchView) rerun(by string) github.CheckRun {
	return completedCheck(github.CheckFailure, "The workflow run is not Kyku's dispatch", "Run "+v.runLink()+
		" is no longer the App's own dispatch (it was re-run by "+markdown.Code(by)+"), so its result is not Kyku's. Re-run the command.\n")
}

// abandoned: the bot restarted without a store while the run went on.
func (v dispatchView) abandoned() github.CheckRun {
	return completedCheck(github.CheckNeutral, "Kyku stopped following the workflow run",
		"The bot restarted while run "+v.runLink()+" was going, and it keeps no record of its dispatches without "+
			markdown.Code(v.store)+": see the run for its result.\n")
}
