package action_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
)

// TestCancelledMergeIsReported: two merges were pushed while a run held
// the workflow's concurrency group; GitHub cancelled the pending run of
// the first (pushBefore, the merge of #4) when the second's joined. The
// second push's run — here a direct push, which applies nothing itself —
// reports that #4 was not applied: an error, the summary, a comment on #4,
// and a failed job. A merge whose run was not cancelled (the one before
// it) is not reported, and the walk stops there.
func TestCancelledMergeIsReported(t *testing.T) {
	const (
		applied = "c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3"
		older   = "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2"
		direct  = "e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5"
	)
	f := newFixture(t)
	f.setCheckout(f.config("web"))
	f.setWorkflow(workflowYAML, direct)
	f.srv.SetWorkflow(repoName, "kyku.yml", githubtest.Workflow{})
	for _, pr := range []struct {
		number   int
		merge    string
		parent   string
		conclude string
	}{
		{4, pushBefore, applied, "cancelled"},
		{3, applied, older, "success"},
	} {
		f.srv.AddPullRequest(repoName, githubtest.PullRequest{Number: pr.number, User: author, HeadSHA: pr.merge, State: "closed", Merged: true})
		f.srv.SetCommitPulls(repoName, pr.merge, pr.number)
		f.srv.AddCommit(repoName, githubtest.GitCommit{SHA: pr.merge, Parents: []string{pr.parent}})
		f.srv.AddWorkflowRun(repoName, githubtest.WorkflowRun{
			Workflow: "kyku.yml", Event: "push", HeadBranch: defaultRef, HeadSHA: pr.merge, Actor: "octocat",
			Status: "completed", Conclusion: pr.conclude,
		})
	}
	// The older commit's run was cancelled too, but the walk stopped at #3.
	f.srv.AddWorkflowRun(repoName, githubtest.WorkflowRun{
		Workflow: "kyku.yml", Event: "push", HeadBranch: defaultRef, HeadSHA: older, Status: "completed", Conclusion: "cancelled",
	})

	r := f.run("push", pushEvent(t, "refs/heads/"+defaultRef, direct), nil)
	wantCode(t, r, 1)
	if !strings.Contains(r.stdout, "::error::the merge of #4 (f95f852) was not applied in prod: its workflow run") {
		t.Errorf("no error annotation for #4; log:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "#3") {
		t.Errorf("#3, whose run succeeded, was reported; log:\n%s", r.stdout)
	}
	if !strings.Contains(r.summary, "### Merges not applied") || !strings.Contains(r.summary, "the merge of #4") {
		t.Errorf("the summary does not say #4 was not applied:\n%s", r.summary)
	}
	comments := f.srv.Comments(repoName, 4)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "**Kyku did not apply this merge** in `prod`") {
		t.Errorf("comments on #4: %+v, want one saying its merge was not applied", comments)
	}
	if n := len(f.srv.Comments(repoName, 3)); n != 0 {
		t.Errorf("%d comments on #3, whose merge was applied", n)
	}
}
