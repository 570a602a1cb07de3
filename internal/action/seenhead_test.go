package action_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kyku/action/internal/github/githubtest"
)

// TestCommentApplyIsOfTheHeadAtTheRunsStart (issue 41, attacker): PR 2's
// head shaB is planned and approved, then force-pushed back to shaA. A
// writer comments /kyku apply; shaB is pushed again after the run read the
// head and before the apply reads it. Every other rule would let shaB
// apply: the run refuses, saying the head moved, and nothing is applied.
func TestCommentApplyIsOfTheHeadAtTheRunsStart(t *testing.T) {
	f := headMovesAtTheSecondRead(t)
	before := f.serial()
	r := f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku apply -e prod", 7101), map[string]string{"GITHUB_ACTOR": "hubot"})
	wantHeadMovedRefusal(t, f, r, before)
}

// TestDispatchWithoutHeadSHAIsOfTheHeadAtTheRunsStart: a dispatched
// apply without input head-sha (a workflow written before it, which does
// not forward the bot's sha) is pinned as a comment's is, to the head as
// the run starts: a push during the run is not applied.
func TestDispatchWithoutHeadSHAIsOfTheHeadAtTheRunsStart(t *testing.T) {
	f := headMovesAtTheSecondRead(t)
	before := f.serial()
	r := f.run("workflow_dispatch", dispatchEvent(t, "kyku[bot]"), dispatchInputs("apply", "2", "hubot"))
	wantHeadMovedRefusal(t, f, r, before)
}

// wantHeadMovedRefusal: run r, of f whose state had serial before,
// succeeded without applying, wrote no state, and its summary says the
// head moved to shaB.
func wantHeadMovedRefusal(t *testing.T, f *fixture, r result, before int64) {
	t.Helper()
	wantCode(t, r, 0)
	wantOutputs(t, r, map[string]string{"applied": "false"})
	if got := f.serial(); got != before {
		t.Errorf("state serial %d → %d: a head pushed after the apply was asked for was applied", before, got)
	}
	if !strings.Contains(r.summary, "head moved to `"+shaB[:7]+"`") {
		t.Errorf("the summary does not say the head moved:\n%s", r.summary)
	}
}

// headMovesAtTheSecondRead is PR 2 with its head shaB planned and approved,
// then force-pushed back to shaA; shaB is pushed again as the run reads
// the pull request a second time (the first read is the head the run
// pins), before that read answers.
func headMovesAtTheSecondRead(t *testing.T) *fixture {
	t.Helper()
	f := approvedHead(t)
	f.srv.UpdatePullRequest(repoName, 2, func(pr *githubtest.PullRequest) { pr.HeadSHA = shaA })

	var reads atomic.Int32
	release := f.srv.Hold(func(method, path string) bool {
		return method == "GET" && strings.HasSuffix(path, "/pulls/2") && reads.Add(1) == 2
	})
	t.Cleanup(release)
	go func() {
		deadline := time.Now().Add(20 * time.Second)
		for f.srv.Held() == 0 && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
		f.srv.UpdatePullRequest(repoName, 2, func(pr *githubtest.PullRequest) { pr.HeadSHA = shaB })
		release()
	}()
	return f
}

// approvedHead is PR 2 at head shaB (configurations differing from shaA
// and from the default branch's), planned, and approved by octocat;
// hubot and octocat may write.
func approvedHead(t *testing.T) *fixture {
	t.Helper()
	return approvedAt(t, newFixture(t), shaB)
}

// approvedAt is f with the default branch at web, shaA adding worker and
// shaB cache, PR 2's head at head, planned and approved by octocat;
// hubot and octocat may write.
func approvedAt(t *testing.T, f *fixture, head string) *fixture {
	t.Helper()
	f.setRef(defaultRef, f.config("web"))
	f.setCheckout(f.config("web"))
	f.setRef(shaA, f.config("web", "worker"))
	f.setRef(shaB, f.config("web", "worker", "cache"))
	f.addPR(2, head)
	f.srv.SetPermission(repoName, "hubot", "write")
	f.srv.SetPermission(repoName, "octocat", "write")
	wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, head), nil), 0)
	f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: head})
	return f
}
