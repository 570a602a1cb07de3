package bot_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kyku/action/internal/github/githubtest"
)

// pushAfterRoute holds the second read of pull request number — the first
// after the bot pinned the head its comment arrived on — and, while it
// waits, moves the pull request's head to sha: a push after the comment.
func pushAfterRoute(t *testing.T, h *harness, number int, sha string) {
	t.Helper()
	var reads atomic.Int32
	suffix := "/pulls/" + strconv.Itoa(number)
	release := h.gh.Hold(func(method, path string) bool {
		return method == "GET" && strings.HasSuffix(path, suffix) && reads.Add(1) == 2
	})
	t.Cleanup(release)
	go func() {
		deadline := time.Now().Add(20 * time.Second)
		for h.gh.Held() == 0 && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
		h.gh.UpdatePullRequest(repoName, number, func(p *githubtest.PullRequest) { p.HeadSHA = sha })
		release()
	}()
}

// TestApplyAppliesTheHeadTheCommenterSaw (issue 41, attacker): PR 2 went
// from headA to headB (planned, approved) and was force-pushed back to
// headA, its plan of before still saved. A writer comments /kyku apply on
// headA; headB is pushed again before the apply runs. Every other rule
// would let headB apply (its plan saved and shown, approved): the bot
// refuses, saying the head moved after the comment, and the cloud keeps
// what it had.
func TestApplyAppliesTheHeadTheCommenterSaw(t *testing.T) {
	h, _, _ := s3Project(t, harnessOpts{}, "", false, configV1+vmA, configV1+vmB)
	openPRs(t, h)
	headBackToA(t, h)
	before := h.cloudObjects()

	pushAfterRoute(t, h, 2, headB)
	h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 1901))
	h.settle()

	c := refusedOn(t, h, 2, before)
	const want = "Pull request #2's head moved to `bbbbbbb` after the `/kyku apply` comment, which was posted on `aaaaaaa`"
	if reply := c[len(c)-1].Body; !strings.Contains(reply, want) {
		t.Errorf("PR 2's reply does not say the head moved:\n%s", reply)
	}
}

// headBackToA plans and approves PR 2 at headB, then moves its head back
// to headA (a force-push), headB's plan still saved and shown.
func headBackToA(t *testing.T, h *harness) {
	t.Helper()
	h.gh.UpdatePullRequest(repoName, 2, func(p *githubtest.PullRequest) { p.HeadSHA = headB })
	h.deliver("pull_request", fixtureAction(t, prOpened(t, 2, headB), "synchronize"))
	h.settle()
	h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headB})
	h.gh.UpdatePullRequest(repoName, 2, func(p *githubtest.PullRequest) { p.HeadSHA = headA })
}

// TestPinnedHeadSurvivesATakeover: replica A pins headA for PR 2's
// /kyku apply and stops before the apply runs; headB is pushed meanwhile.
// Replica B, taking the job over, routes the comment again with the head
// A pinned (kept with the job), not the one it would read now: the apply
// is refused and nothing is applied.
func TestPinnedHeadSurvivesATakeover(t *testing.T) {
	_, open := botStore(t)
	a, _, _ := s3Project(t, harnessOpts{store: open(), replica: "replica-a", lease: time.Hour}, "", false, configV1+vmA, configV1+vmB)
	openPRs(t, a)
	headBackToA(t, a)
	var reads atomic.Int32
	release := a.gh.Hold(func(method, path string) bool {
		return method == "GET" && strings.HasSuffix(path, "/pulls/2") && reads.Add(1) == 2
	})
	t.Cleanup(release)
	a.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 1903))
	eventually(t, "A's apply never read the pull request", func() bool { return a.gh.Held() == 1 })
	a.gh.UpdatePullRequest(repoName, 2, func(p *githubtest.PullRequest) { p.HeadSHA = headB })
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_ = a.bot.Shutdown(ctx) // A stops with the apply unfinished
	release()
	b := a.replica(harnessOpts{store: open(), replica: "replica-b", lease: time.Hour})
	eventually(t, "B did not judge the apply", func() bool {
		m := b.metrics()
		return m[applied]+m[`kyku_bot_jobs_total{kind="apply",outcome="refused"}`] == 1
	})
	b.settle()
	if n := b.metrics()[applied]; n != 0 {
		t.Errorf("B applied %v times, want none", n)
	}
	c := b.botComments(2)
	if len(c) == 0 || !strings.Contains(c[len(c)-1].Body, "head moved to `bbbbbbb`") {
		t.Errorf("PR 2's last reply does not say the head moved: %+v", c)
	}
}

// TestDispatchedApplyIsOfTheHeadTheCommenterSaw: under execution:
// actions, a push between the comment and the bot's check before the
// dispatch refuses the command: nothing is dispatched.
func TestDispatchedApplyIsOfTheHeadTheCommenterSaw(t *testing.T) {
	h := actionsApplyOnPR2(t)
	pushAfterRoute(t, h, 2, headB)
	h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 1902))
	h.settle()
	notDispatched(t, h, "head moved to `bbbbbbb`")
}

// notDispatched checks that no workflow was dispatched for PR 2's
// /kyku apply and that its last reply says want.
func notDispatched(t *testing.T, h *harness, want string) {
	t.Helper()
	if d := h.gh.Dispatches(repoName); len(d) != 0 {
		t.Errorf("dispatched %+v; want none", d)
	}
	c := h.botComments(2)
	if len(c) == 0 || !strings.Contains(c[len(c)-1].Body, want) {
		t.Errorf("PR 2's replies %+v do not say %q", c, want)
	}
}

// refusedOn checks that nothing was applied (the cloud as it was before)
// and returns pull request number's bot comments, which must hold a reply.
func refusedOn(t *testing.T, h *harness, number int, before []string) []githubtest.Comment {
	t.Helper()
	if n := h.metrics()[applied]; n != 0 {
		t.Errorf("applied %v times, want none", n)
	}
	if after := h.cloudObjects(); len(after) != len(before) {
		t.Errorf("the cloud changed: %v, then %v", before, after)
	}
	c := h.botComments(number)
	if len(c) == 0 {
		t.Fatalf("PR %d got no reply", number)
	}
	return c
}

// postedAt sets a comment payload's comment.created_at.
func postedAt(t *testing.T, body []byte, at time.Time) []byte {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	obj(p, "comment")["created_at"] = at.UTC().Format(time.RFC3339)
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestApplyRefusesAHeadGitHubGotAfterTheComment (attacker): headA is
// pushed to PR 2 just after a writer's /kyku apply is posted, and its
// push is delivered first, so when the comment is handled headA is
// already the head: reading the head then cannot tell. GitHub's own
// clock can (headA's check suites are younger than the comment): the bot
// refuses, saying when each happened, and applies nothing. Pushed a
// second before the comment, the same head is applied.
func TestApplyRefusesAHeadGitHubGotAfterTheComment(t *testing.T) {
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	h, _, _ := s3Project(t, harnessOpts{}, "", false, configV1+vmA, configV1+vmB)
	openPRs(t, h)
	before := h.cloudObjects()
	h.gh.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: headA, AppSlug: "kyku", Created: at.Add(4 * time.Second)})

	h.deliver("issue_comment", postedAt(t, commentOn(t, 2, "writer", "User", "/kyku apply", 1911), at))
	h.settle()
	c := refusedOn(t, h, 2, before)
	const want = "Pull request #2's head `aaaaaaa` reached GitHub at 2026-12-07 12:00:04 UTC, not before the `/kyku apply` comment (2026-12-07 12:00:00 UTC)"
	if !strings.Contains(c[len(c)-1].Body, want) {
		t.Fatalf("PR 2's replies do not say the head came after the comment: %+v", c)
	}

	h.deliver("issue_comment", postedAt(t, commentOn(t, 2, "writer", "User", "/kyku apply", 1912), at.Add(5*time.Second)))
	h.settle()
	if n := h.metrics()[applied]; n != 1 {
		t.Errorf("the comment after the push applied %v times, want 1", n)
	}
}

// TestDispatchRefusedForAHeadGitHubGotAfterTheComment: under execution:
// actions the bot checks GitHub's clock before it dispatches: a head that
// reached GitHub after the comment is not handed to the workflow.
func TestDispatchRefusedForAHeadGitHubGotAfterTheComment(t *testing.T) {
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	h := actionsApplyOnPR2(t)
	h.gh.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: headA, AppSlug: "github-actions", Created: at.Add(time.Minute)})
	h.deliver("issue_comment", postedAt(t, commentOn(t, 2, "writer", "User", "/kyku apply", 1913), at))
	h.settle()
	notDispatched(t, h, "reached GitHub at 2026-12-07 12:01:00 UTC, not before the `/kyku apply` comment")
}

// TestApplyRefusesAHeadMadeTheHeadAgainAfterTheComment (attacker): PR 2's
// headB was planned and approved, then force-pushed back to headA. A
// writer comments /kyku apply on headA; headB is made the head again
// right after, and that push is in before the comment is handled, so headB
// is the head the bot reads, and GitHub held headB long before (its check
// suite is old). What GitHub recorded after the comment tells, whichever
// way headB came back: a force-push (the pull request's events) or a push
// that fast-forwards the branch (the repository's activity, no force-push
// recorded). The bot refuses, saying when, and applies nothing.
func TestApplyRefusesAHeadMadeTheHeadAgainAfterTheComment(t *testing.T) {
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		record func(gh *githubtest.Server)
		want   string
	}{{
		name: "force-pushed",
		record: func(gh *githubtest.Server) {
			gh.AddIssueEvent(repoName, 2, githubtest.IssueEvent{Event: "head_ref_force_pushed", Actor: "author", Created: at.Add(-time.Minute)})
			gh.AddIssueEvent(repoName, 2, githubtest.IssueEvent{Event: "head_ref_force_pushed", Actor: "author", Created: at.Add(2 * time.Second)})
		},
		want: "Pull request #2's branch was force-pushed at 2026-12-07 12:00:02 UTC, not before the `/kyku apply` comment (2026-12-07 12:00:00 UTC), to `bbbbbbb`",
	}, {
		name: "pushed",
		record: func(gh *githubtest.Server) {
			gh.AddActivity(repoName, githubtest.Activity{Ref: "refs/heads/feature-2", Type: "push", Before: headA, After: headB, Actor: "author", At: at.Add(3 * time.Second)})
		},
		want: "Pull request #2's branch `feature-2` was pushed to at 2026-12-07 12:00:03 UTC, not before the `/kyku apply` comment (2026-12-07 12:00:00 UTC); its head is `bbbbbbb`",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			h, _, _ := s3Project(t, harnessOpts{}, "", false, configV1+vmA, configV1+vmB)
			openPRs(t, h)
			headBackToA(t, h)
			before := h.cloudObjects()
			h.gh.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: headB, AppSlug: "kyku", Created: at.Add(-time.Hour)})
			tc.record(h.gh)
			h.gh.UpdatePullRequest(repoName, 2, func(p *githubtest.PullRequest) { p.HeadSHA = headB })

			h.deliver("issue_comment", postedAt(t, commentOn(t, 2, "writer", "User", "/kyku apply", 1914), at))
			h.settle()
			if c := refusedOn(t, h, 2, before); !strings.Contains(c[len(c)-1].Body, tc.want) {
				t.Fatalf("PR 2's replies do not say headB came back after the comment: %+v", c)
			}
		})
	}
}
