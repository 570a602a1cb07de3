package action_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/github/githubtest"
)

// TestCommentApplyRefusesAHeadGitHubGotAfterTheComment (attacker): a
// writer comments /kyku apply on PR 2; its author pushes shaA a minute
// later, while the workflow run waits in the queue, and shaA is planned
// and approved (a reviewer who did not look twice). The run reads the head
// as it starts, which is already shaA: only GitHub's clock tells that the
// comment cannot have been about it (shaA's oldest check suite is younger
// than the comment). Nothing is applied and the summary says why; the same
// command posted after the push applies it.
func TestCommentApplyRefusesAHeadGitHubGotAfterTheComment(t *testing.T) {
	posted := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	f := newFixture(t)
	f.setRef(defaultRef, f.config("web"))
	f.setCheckout(f.config("web"))
	f.setRef(shaA, f.config("web", "worker"))
	f.addPR(2, shaA)
	f.srv.SetPermission(repoName, "hubot", "write")
	f.srv.SetPermission(repoName, "octocat", "write")
	wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil), 0)
	f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
	f.srv.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: shaA, AppSlug: "github-actions", Created: posted.Add(time.Minute)})

	before := f.serial()
	ev := commentEvent(t, 2, "hubot", "/kyku apply -e prod", 7101)
	obj(ev, "comment")["created_at"] = posted.Format(time.RFC3339)
	r := f.run("issue_comment", ev, map[string]string{"GITHUB_ACTOR": "hubot"})
	wantCode(t, r, 0)
	f.nothingApplied(t, r, before)
	if want := "reached GitHub at 2026-12-07 12:01:00 UTC, not before the `/kyku apply` comment (2026-12-07 12:00:00 UTC)"; !strings.Contains(r.summary, want) {
		t.Errorf("the summary does not say the head came after the comment:\n%s", r.summary)
	}

	ev = commentEvent(t, 2, "hubot", "/kyku apply -e prod", 7102)
	obj(ev, "comment")["created_at"] = posted.Add(2 * time.Minute).Format(time.RFC3339)
	r = f.run("issue_comment", ev, map[string]string{"GITHUB_ACTOR": "hubot"})
	wantCode(t, r, 0)
	wantOutputs(t, r, map[string]string{"applied": "true"})
}
