package dispatch

import (
	"testing"
	"time"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/golden"
)

// TestDispatchChecksGolden: everything the check run of a dispatched
// target (execution: actions) can say, from the dispatch to the run's
// end: testdata/dispatch-checks.md.
func TestDispatchChecksGolden(t *testing.T) {
	var doc golden.Sections
	w := &Watch{Check: "kyku apply (infra/prod)"}
	checkText := func(c github.CheckRun) string { return golden.CheckRunOf(w.named(c)) }
	v := dispatchView{
		d: jobs.Dispatch{ID: "kyku-0123456789abcdef0123456789abcdef", Workflow: "kyku.yml", Ref: "refs/heads/main",
			HeadSHA: "a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0", At: time.Date(2026, 12, 6, 8, 0, 0, 0, time.UTC)},
		self: "kyku[bot]", target: "infra/prod", store: "KYKU_BOT_STORE",
	}
	doc.Add(t, "dispatching", checkText(v.dispatching()))
	doc.Add(t, "refused by GitHub", checkText(v.refused("422 Unexpected inputs provided: [dispatch-id]")))
	doc.Add(t, "not started", checkText(v.notStarted(5*time.Minute)))
	doc.Add(t, "claimed by two runs", checkText(v.claimedTwice(2)))
	doc.Add(t, "abandoned before its run was found", checkText(v.abandoned()))
	v.d.Run, v.d.RunURL = 4242, "https://github.example/acme/infra/actions/runs/4242"
	run := github.WorkflowRun{ID: 4242, Number: 17, Status: "in_progress", HTMLURL: v.d.RunURL, HeadSHA: v.d.HeadSHA}
	for _, status := range []string{"queued", "waiting", "in_progress"} {
		run.Status = status
		doc.Add(t, "running: "+status, checkText(v.running(run)))
	}
	run.Status = "completed"
	runJobs := []github.WorkflowJob{{Name: "kyku (prod)", Status: "completed", Conclusion: "success"}, {Name: "a|b `job`", Status: "in_progress"}}
	for _, c := range []string{"success", "failure", "cancelled", "startup_failure"} {
		run.Conclusion = c
		doc.Add(t, "completed: "+c, checkText(v.completed(run, runJobs)))
	}
	doc.Add(t, "completed, jobs unknown", checkText(v.completed(run, nil)))
	doc.Add(t, "gone", checkText(v.gone()))
	doc.Add(t, "timed out", checkText(v.timedOut("in_progress", 6*time.Hour)))
	doc.Add(t, "another commit", checkText(v.notOurs("ffffffffffffffffffffffffffffffffffffffff")))
	doc.Add(t, "re-run by someone else", checkText(v.rerun("mallory")))
	doc.Add(t, "abandoned", checkText(v.abandoned()))
	v.d.HeadSHA = ""
	doc.Add(t, "another commit, head not recorded", checkText(v.notOurs("ffffffffffffffffffffffffffffffffffffffff")))
	golden.Check(t, "dispatch-checks.md", doc.String())
}
