package bot_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/bot/jobs/jobstest"
	"github.com/kyku/action/internal/github/githubtest"
)

// dispatchInputs are the workflow_dispatch inputs the bot sends.
var dispatchInputs = []string{"command", "config", "environment", "project", "pr", "sha", "requested-by", bot.DispatchIDInput}

// kykuWorkflow is the user's workflow as docs/bot.md shows it: every input
// declared, the dispatch ID in its run-name.
var kykuWorkflow = githubtest.Workflow{Name: "Kyku", Inputs: dispatchInputs, RunName: "kyku ${{ inputs.command }} ${{ inputs.dispatch-id }}"}

const actionsSettings = "execution: actions\nworkflow: kyku.yml\nprojects:\n  - name: infra\n    config: kyku.yaml\n    environments: [prod]\n"

// actionsApplyOnPR2 is a bot under execution: actions that applies on
// a comment, with a writer, and PR 2 open at headA.
func actionsApplyOnPR2(t *testing.T) *harness {
	t.Helper()
	h := actionsHarness(t, kykuWorkflow, time.Hour)
	h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(actionsSettings+"apply: both\n"))
	h.gh.SetPermission(repoName, "writer", "write")
	h.pr(2, headA)
	return h
}

// actionsHarness is a repository with execution: actions, whose workflow
// is wf, and a bot that looks at runs every few milliseconds.
func actionsHarness(t *testing.T, wf githubtest.Workflow, start time.Duration) *harness {
	t.Helper()
	h := newHarness(t, harnessOpts{actions: bot.ActionsOptions{Poll: 3 * time.Millisecond, StartTimeout: start}})
	h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(actionsSettings))
	h.gh.SetWorkflow(repoName, "kyku.yml", wf)
	return h
}

func (h *harness) checkRunNamed(name string) githubtest.CheckRun {
	h.t.Helper()
	var found []githubtest.CheckRun
	for _, c := range h.gh.CheckRuns(repoName) {
		if c.Name == name {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		h.t.Fatalf("check runs named %q: %+v, want one", name, found)
	}
	return found[0]
}

// TestDispatchedRunIsFollowedToItsEnd: the bot opens the check run before
// it dispatches, links the run it started once it appears and ends with
// that run's own conclusion and jobs. Runs that show the same dispatch ID
// but were not started by the App as a workflow_dispatch on the default
// branch — a writer's dispatch with the same run-name, a pull request's
// run, a run on another branch — complete nothing, though they finish
// first and succeed.
func TestDispatchedRunIsFollowedToItsEnd(t *testing.T) {
	wf := kykuWorkflow
	wf.NeverStarts = true // the test starts the real run itself, after the look-alikes
	h := actionsHarness(t, wf, time.Minute)
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	const check = "kyku plan (infra/prod)"
	cr := h.checkRunNamed(check)
	d := h.gh.Dispatches(repoName)
	if len(d) != 1 {
		t.Fatalf("dispatches %+v, want one", d)
	}
	id := d[0].Inputs[bot.DispatchIDInput].(string)
	if cr.Status != "queued" || cr.ExternalID != id || cr.HeadSHA != headA || !strings.Contains(cr.Summary, id) {
		t.Fatalf("check run before the run starts = %+v", cr)
	}

	title := "kyku plan " + id
	for _, look := range []githubtest.WorkflowRun{
		{Workflow: "kyku.yml", DisplayTitle: title, Event: "workflow_dispatch", HeadBranch: defaultBranch, HeadSHA: baseSHA, Actor: "mallory"},
		{Workflow: "kyku.yml", DisplayTitle: title, Event: "pull_request", HeadBranch: "feature", HeadSHA: baseSHA, Actor: "kyku[bot]"},
		{Workflow: "kyku.yml", DisplayTitle: title, Event: "workflow_dispatch", HeadBranch: "feature", HeadSHA: baseSHA, Actor: "kyku[bot]"},
		{Workflow: "kyku.yml", DisplayTitle: title, Event: "workflow_dispatch", HeadBranch: defaultBranch, HeadSHA: baseSHA, Actor: "kyku[bot]", TriggeringActor: "mallory"},
	} {
		look.Status, look.Conclusion = "completed", "success"
		look.Jobs = []githubtest.WorkflowJob{{Name: "kyku", Status: "completed", Conclusion: "success"}}
		h.gh.AddWorkflowRun(repoName, look)
	}
	// Many looks at the workflow's runs, each finding the look-alikes.
	looks := h.gh.CountRequests("GET", "/actions/workflows/kyku.yml/runs")
	eventually(t, "the watcher stopped looking", func() bool {
		return h.gh.CountRequests("GET", "/actions/workflows/kyku.yml/runs") >= looks+10
	})
	if cr := h.checkRunNamed(check); cr.Status != "queued" || cr.DetailsURL != "" {
		t.Fatalf("a run the bot did not dispatch moved its check run: %+v", cr)
	}

	real := h.gh.AddWorkflowRun(repoName, githubtest.WorkflowRun{
		Workflow: "kyku.yml", DisplayTitle: title, Event: "workflow_dispatch", HeadBranch: defaultBranch, HeadSHA: baseSHA, Actor: "kyku[bot]",
	})
	runURL := h.gh.URL + "/" + repoName + "/actions/runs/"
	eventually(t, "the dispatched run was never linked", func() bool {
		return strings.HasPrefix(h.checkRunNamed(check).DetailsURL, runURL)
	})
	h.gh.UpdateWorkflowRun(repoName, real, func(r *githubtest.WorkflowRun) { r.Status = "in_progress" })
	eventually(t, "the check run never showed the run in progress", func() bool { return h.checkRunNamed(check).Status == "in_progress" })
	h.gh.UpdateWorkflowRun(repoName, real, func(r *githubtest.WorkflowRun) {
		r.Status, r.Conclusion = "completed", "failure"
		r.Jobs = []githubtest.WorkflowJob{{Name: "kyku", Status: "completed", Conclusion: "failure"}}
	})
	eventually(t, "the check run never ended", func() bool { return h.checkRunNamed(check).Status == "completed" })
	cr = h.checkRunNamed(check)
	if cr.Conclusion != "failure" || !strings.HasSuffix(cr.DetailsURL, "/actions/runs/"+strconv.FormatInt(real, 10)) {
		t.Errorf("ended check run = %+v, want the run's failure", cr)
	}
	h.wantConversation(2, "dispatched-run-failed") // the run's failure and its job's
	eventually(t, "the ended watch is still counted, or its failure is not", func() bool {
		m := h.metrics()
		return m[`kyku_bot_dispatches_total{result="failure"}`] == 1 && m["kyku_bot_dispatches_watched"] == 0
	})
	if n := len(h.gh.Dispatches(repoName)); n != 1 {
		t.Errorf("%d dispatches, want 1", n)
	}
}

// TestRefusedDispatchIsReportedAtOnce: a dispatch GitHub refuses — the
// workflow does not declare dispatch-id, is disabled, has no
// workflow_dispatch trigger, or is missing — ends its check run at once
// with GitHub's own answer and what the workflow needs; nothing waits.
func TestRefusedDispatchIsReportedAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		wf   githubtest.Workflow
		file string
		says string
	}{
		{"without the dispatch-id input", githubtest.Workflow{Inputs: dispatchInputs[:7]}, "kyku.yml", `422 Unexpected inputs provided: ["dispatch-id"]`},
		{"disabled", githubtest.Workflow{Inputs: dispatchInputs, Disabled: true}, "kyku.yml", "disabled workflow"},
		{"without workflow_dispatch", githubtest.Workflow{NoDispatch: true}, "kyku.yml", "does not have 'workflow_dispatch' trigger"},
		{"missing", githubtest.Workflow{Inputs: dispatchInputs}, "other.yml", "404 Not Found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := actionsHarness(t, tc.wf, time.Hour)
			if tc.file != "kyku.yml" {
				h.gh.SetWorkflow(repoName, tc.file, tc.wf)
				h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(strings.Replace(actionsSettings, "workflow: kyku.yml", "workflow: missing.yml", 1)))
			}
			h.pr(2, headA)
			h.deliver("pull_request", prOpened(t, 2, headA))
			h.settle()
			eventually(t, "the refused dispatch's check run did not end", func() bool { return h.checkRunNamed("kyku plan (infra/prod)").Status == "completed" })
			cr := h.checkRunNamed("kyku plan (infra/prod)")
			if cr.Conclusion != "failure" || !strings.Contains(cr.Summary, tc.says) {
				t.Errorf("check run = %+v, want a failure quoting %q", cr, tc.says)
			}
			h.wantConversation(2, "dispatch-refused-"+strings.ReplaceAll(tc.name, " ", "-"))
			eventually(t, "the refused dispatch was not counted", func() bool {
				return h.metrics()[`kyku_bot_dispatches_total{result="refused"}`] == 1
			})
		})
	}
}

// TestDispatchThatNeverStartsIsReported: GitHub accepts the dispatch but
// no run appears (Actions disabled for the repository, no runner): the
// check run ends as a failure once the start timeout has passed, saying
// what to check, instead of staying queued.
func TestDispatchThatNeverStartsIsReported(t *testing.T) {
	wf := kykuWorkflow
	wf.NeverStarts = true
	h := actionsHarness(t, wf, 100*time.Millisecond)
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	eventually(t, "the check run of a run that never started stayed open", func() bool {
		return h.checkRunNamed("kyku plan (infra/prod)").Status == "completed"
	})
	cr := h.checkRunNamed("kyku plan (infra/prod)")
	if cr.Conclusion != "failure" {
		t.Errorf("check run = %+v", cr)
	}
	h.wantConversation(2, "dispatch-never-started") // what to check
	eventually(t, "the dispatch that never started was not counted", func() bool {
		return h.metrics()[`kyku_bot_dispatches_total{result="not_started"}`] == 1
	})
}

// TestWorkflowRunDeliveryIsOnlyAHint: a signed workflow_run delivery makes
// the watcher look at its run at once (the poll here is an hour), and the
// check run still says what the API says, not what the payload claims.
func TestWorkflowRunDeliveryIsOnlyAHint(t *testing.T) {
	h := newHarness(t, harnessOpts{actions: bot.ActionsOptions{Poll: time.Hour, StartTimeout: time.Hour}})
	h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(actionsSettings))
	h.gh.SetWorkflow(repoName, "kyku.yml", kykuWorkflow)
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	runs := h.gh.WorkflowRuns(repoName)
	if len(runs) != 1 {
		t.Fatalf("runs %+v, want the dispatched one", runs)
	}
	// The watcher looks at its run once as it starts (beside the job
	// that dispatched it): the run ends only after that look, or the
	// watcher would find it ended by itself and the hint have nothing to
	// wake.
	eventually(t, "the watcher did not look at its run", func() bool {
		return h.checkRunNamed("kyku plan (infra/prod)").DetailsURL != ""
	})
	h.gh.UpdateWorkflowRun(repoName, runs[0].ID, func(r *githubtest.WorkflowRun) {
		r.Status, r.Conclusion = "completed", "cancelled"
	})
	// The payload claims success; the API says cancelled.
	body := fixture(t, "workflow_run.completed", func(p map[string]any) {
		wr := obj(p, "workflow_run")
		wr["display_title"], wr["conclusion"], wr["id"] = runs[0].DisplayTitle, "success", runs[0].ID
	})
	if code, msg := h.post("workflow_run", "wr-1", body, ""); code != 200 || !strings.Contains(msg, "1 dispatched runs looked at again") {
		t.Fatalf("workflow_run delivery: %d %s", code, msg)
	}
	eventually(t, "the nudged watcher did not look", func() bool { return h.checkRunNamed("kyku plan (infra/prod)").Status == "completed" })
	if cr := h.checkRunNamed("kyku plan (infra/prod)"); cr.Conclusion != "cancelled" {
		t.Errorf("check run = %+v, want the API's cancelled", cr)
	}
	if code, msg := h.post("workflow_run", "wr-2", body, "sha256="+strings.Repeat("0", 64)); code != 401 {
		t.Errorf("an unsigned workflow_run: %d %s, want 401", code, msg)
	}
}

// TestDispatchedCommandNamesWhoAsked: a /kyku apply under execution:
// actions, by someone the rules let apply, is dispatched with requested-by
// naming them (the Action judges it as their command); a merge is not
// dispatched at all — the workflow's own push trigger applies it, which is
// where the Action judges a merge.
func TestDispatchedCommandNamesWhoAsked(t *testing.T) {
	h := actionsApplyOnPR2(t)
	h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 1201))
	h.settle()
	d := h.gh.Dispatches(repoName)
	if len(d) != 1 || d[0].Inputs["command"] != "apply" || d[0].Inputs["requested-by"] != "writer" {
		t.Fatalf("dispatches %+v, want one apply requested by writer", d)
	}
	if cr := h.checkRunNamed("kyku apply (infra/prod)"); cr.HeadSHA != headA {
		t.Errorf("apply check run %+v, want it on the head", cr)
	}
	h.gh.UpdatePullRequest(repoName, 2, func(p *githubtest.PullRequest) { p.State, p.Merged = "closed", true })
	h.deliver("pull_request", prMerged(t, 2, headA))
	h.settle()
	if n := len(h.gh.Dispatches(repoName)); n != 1 {
		t.Errorf("%d dispatches after the merge, want still 1", n)
	}
	if m := h.metrics(); m[`kyku_bot_jobs_total{kind="merge",outcome="left-to-actions"}`] != 1 {
		t.Errorf("merge outcome not left-to-actions: %v", m[`kyku_bot_jobs_total{kind="merge",outcome="left-to-actions"}`])
	}
}

// TestDispatchedRunIsWatchedAgainAfterATakeover: replica A dispatches a
// plan and follows its run, then loses its store (it died). Replica B
// takes the job over and follows the same run — it does not dispatch the
// workflow again — and ends the check run A opened with the run's result.
func TestDispatchedRunIsWatchedAgainAfterATakeover(t *testing.T) {
	_, open := botStore(t)
	const lease = 600 * time.Millisecond
	watch := bot.ActionsOptions{Poll: 5 * time.Millisecond, StartTimeout: time.Minute}
	storeA := &jobstest.Severable{Objects: open()}
	a := newHarness(t, harnessOpts{store: storeA, replica: "replica-a", lease: lease, actions: watch})
	a.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(actionsSettings))
	a.gh.SetWorkflow(repoName, "kyku.yml", kykuWorkflow)
	a.pr(2, headA)
	a.deliver("pull_request", prOpened(t, 2, headA))
	eventually(t, "A never followed the run", func() bool {
		cr := a.gh.CheckRuns(repoName)
		return len(cr) == 1 && cr[0].DetailsURL != ""
	})
	storeA.Cut()
	b := a.replica(harnessOpts{store: open(), replica: "replica-b", lease: lease, actions: watch})
	eventually(t, "B never took the job over", func() bool {
		return b.metrics()[`kyku_bot_jobs_resumed_total{result="taken_over"}`] == 1
	})
	eventually(t, "B does not follow the run", func() bool { return b.metrics()["kyku_bot_dispatches_watched"] == 1 })
	runs := a.gh.WorkflowRuns(repoName)
	if len(runs) != 1 || len(a.gh.Dispatches(repoName)) != 1 {
		t.Fatalf("runs %+v, dispatches %+v: want the one A dispatched", runs, a.gh.Dispatches(repoName))
	}
	a.gh.UpdateWorkflowRun(repoName, runs[0].ID, func(r *githubtest.WorkflowRun) { r.Status, r.Conclusion = "completed", "success" })
	eventually(t, "the check run never ended", func() bool { return a.checkRunNamed("kyku plan (infra/prod)").Status == "completed" })
	if cr := a.checkRunNamed("kyku plan (infra/prod)"); cr.Conclusion != "success" {
		t.Errorf("check run %+v, want the run's success", cr)
	}
	eventually(t, "B kept the job", func() bool { return len(jobKeys(t, open())) == 0 })
}

// tagSHA is the commit of a tag named like the default branch: a writer who
// may push tags (not the protected branch) puts a workflow of its own there.
const tagSHA = "7a97a97a97a97a97a97a97a97a97a97a97a97a97"

// TestDispatchRunsTheDefaultBranchNotATagOfItsName: a tag named like the
// default branch exists. The bot dispatches the branch by its full ref, so
// the run GitHub starts is on the branch's head, and the check run ends
// with it. A run the App started for the dispatch on the tag's commit —
// what a dispatch of the short name starts, its head_branch reading the
// branch's name all the same — ends the check run as not Kyku's, though
// it succeeded.
func TestDispatchRunsTheDefaultBranchNotATagOfItsName(t *testing.T) {
	const check = "kyku plan (infra/prod)"
	t.Run("the dispatched run is on the branch", func(t *testing.T) {
		h := actionsHarness(t, kykuWorkflow, time.Minute)
		h.gh.SetTag(repoName, defaultBranch, tagSHA)
		h.pr(2, headA)
		h.deliver("pull_request", prOpened(t, 2, headA))
		h.settle()
		runs := h.gh.WorkflowRuns(repoName)
		if len(runs) != 1 || runs[0].HeadSHA != baseSHA {
			t.Fatalf("runs %+v, want one on %s (the branch %s), not the tag's %s", runs, baseSHA, defaultBranch, tagSHA)
		}
		h.gh.UpdateWorkflowRun(repoName, runs[0].ID, func(r *githubtest.WorkflowRun) { r.Status, r.Conclusion = "completed", "success" })
		eventually(t, "the check run never ended", func() bool { return h.checkRunNamed(check).Status == "completed" })
		if cr := h.checkRunNamed(check); cr.Conclusion != "success" {
			t.Errorf("check run %+v, want the branch's run's success", cr)
		}
	})
	t.Run("a run on the tag's commit is refused", func(t *testing.T) {
		wf := kykuWorkflow
		wf.NeverStarts = true
		h := actionsHarness(t, wf, time.Minute)
		h.gh.SetTag(repoName, defaultBranch, tagSHA)
		h.pr(2, headA)
		h.deliver("pull_request", prOpened(t, 2, headA))
		h.settle()
		id := h.gh.Dispatches(repoName)[0].Inputs[bot.DispatchIDInput].(string)
		h.gh.AddWorkflowRun(repoName, githubtest.WorkflowRun{
			Workflow: "kyku.yml", DisplayTitle: "kyku plan " + id, Event: "workflow_dispatch", HeadBranch: defaultBranch, HeadSHA: tagSHA,
			Actor: "kyku[bot]", Status: "completed", Conclusion: "success",
			Jobs: []githubtest.WorkflowJob{{Name: "kyku", Status: "completed", Conclusion: "success"}},
		})
		eventually(t, "the check run never ended", func() bool { return h.checkRunNamed(check).Status == "completed" })
		cr := h.checkRunNamed(check)
		if cr.Conclusion != "failure" || !strings.Contains(cr.Summary, "ran commit `"+tagSHA+"`, not `"+baseSHA+"`") {
			t.Errorf("check run %+v, want the tag's run refused", cr)
		}
		h.wantConversation(2, "dispatch-on-a-tag")
	})
}
