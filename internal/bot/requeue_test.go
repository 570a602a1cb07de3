package bot_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/review"
)

// headC is a push to PR 3 made while its apply waited.
const headC = "ccccccc3333333333333333333333333333333cc"

// requeuedPlan counts the plan jobs requeued behind their environment.
const requeuedPlan = `kyku_bot_jobs_requeued_total{kind="plan"}`

// TestUnleasedJobsHoldNoWorkers (issue 41): three pull requests' plans
// on a state without leases, one running (held) and two requeued behind
// it, leave the bot's second worker free: another repository's plan runs
// and ends meanwhile, not after them.
func TestUnleasedJobsHoldNoWorkers(t *testing.T) {
	release, otherDone := make(chan struct{}), make(chan struct{})
	rules := bot.Rules{Plan: func(ctx context.Context, d review.Deps, req review.PlanRequest) (*review.PlanOutcome, error) {
		if req.Number == 5 { // the other repository's
			defer close(otherDone)
			return review.Plan(ctx, d, req)
		}
		open := d.Open
		d.Open = func(ctx context.Context, cfg *cfgConfig, env string) (*reviewWorkspace, error) {
			ws, err := open(ctx, cfg, env) // the plan holds the state from here
			select {
			case <-release:
			case <-ctx.Done():
			}
			return ws, err
		}
		return review.Plan(ctx, d, req)
	}}
	h, _, _ := s3Project(t, harnessOpts{workers: 2, rules: rules}, "", false, configV1+vmA, configV1+vmB)
	let := onceClose(release)
	t.Cleanup(let)
	h.pr(2, headA)
	h.pr(3, headB)
	h.pr(4, headB)
	for _, n := range []int{2, 3, 4} {
		h.deliver("pull_request", prOpened(t, n, map[int]string{2: headA, 3: headB, 4: headB}[n]))
	}
	// One plan runs, the others wait: requeued, or (as the bot once did)
	// in a worker each, for their turn on the state.
	eventually(t, "the plans do not wait for the one running", func() bool {
		m := h.metrics()
		return m[requeuedPlan] == 3 && m["kyku_bot_jobs_running"] == 1 && m["kyku_bot_queue_depth"] == 2 ||
			m["kyku_bot_jobs_running"] == 2 && strings.Contains(h.logs(), "waiting for the turn on the state")
	})
	h.addOtherRepo(configV1, configV2)
	h.deliver("pull_request", otherOpened(t))
	waitFor(t, "the other repository's plan waited for the unleased state's jobs", otherDone)
	let()
	h.settle()
	if n := h.metrics()[`kyku_bot_jobs_total{kind="plan",outcome="planned"}`]; n != 4 {
		t.Errorf("planned %v, want 4", n)
	}
}

// onceClose closes ch the first time it is called.
// heldPlans are rules whose plans, of the requests only admits, once hold
// is set, say so on held and wait until release (or their context ends);
// release is also called when the test ends.
func heldPlans(t *testing.T, only func(review.PlanRequest) bool) (rules bot.Rules, hold *atomic.Bool, held <-chan struct{}, release func()) {
	let, heldc := make(chan struct{}), make(chan struct{}, 1)
	hold = new(atomic.Bool)
	rules = bot.Rules{Plan: func(ctx context.Context, d review.Deps, req review.PlanRequest) (*review.PlanOutcome, error) {
		if only(req) && hold.Load() {
			heldc <- struct{}{}
			select {
			case <-let:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return review.Plan(ctx, d, req)
	}}
	release = onceClose(let)
	t.Cleanup(release)
	return rules, hold, heldc, release
}

func onceClose(ch chan struct{}) func() {
	var done atomic.Bool
	return func() {
		if done.CompareAndSwap(false, true) {
			close(ch)
		}
	}
}

// TestRequeuedApplyIsJudgedWhenItRuns (issue 41): PR 3's /kyku apply,
// requeued behind PR 2's on a state without leases, is judged when it
// runs, not when it was commented: a push or a dismissed approval while
// it waited refuses it for that reason.
func TestRequeuedApplyIsJudgedWhenItRuns(t *testing.T) {
	for _, tc := range []struct {
		name  string
		while func(h *harness)
		want  string
	}{
		{"pushed meanwhile", func(h *harness) {
			h.gh.SetFile(repoName, headC, "kyku.yaml", []byte(configV1+vmB))
			h.gh.UpdatePullRequest(repoName, 3, func(p *githubtestPR) { p.HeadSHA = headC })
		}, "`ccccccc`"},
		{"approval dismissed", func(h *harness) {
			h.gh.AddReview(repoName, 3, githubtest.Review{User: "reviewer", State: "DISMISSED", CommitID: headB})
		}, "approv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGate("a")
			h, _, _ := s3Project(t, harnessOpts{sim: g.wrap, lockTimeout: time.Millisecond}, "", false, configV1+vmA, configV1+vmB)
			t.Cleanup(g.open)
			openPRs(t, h)
			h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 1401))
			waitFor(t, "PR 2's apply never created a", g.entered)
			h.deliver("issue_comment", commentOn(t, 3, "writer", "User", "/kyku apply", 1402))
			// Waiting, however it waits (requeued; in a worker, as the bot
			// once did, judged before it waited).
			eventually(t, "PR 3's apply does not wait for PR 2's", func() bool {
				m := h.metrics()
				return m[requeuedApply] == 2 && m["kyku_bot_queue_depth"] == 1 ||
					strings.Contains(h.logs(), `"msg":"waiting for the turn on the state","repo":"Codertocat/Hello-World","pr":3`)
			})
			tc.while(h)
			g.open()
			h.settle()
			if n := h.metrics()[applied]; n != 1 {
				t.Fatalf("applied %v, want PR 2's alone", n)
			}
			c := h.botComments(3)
			if len(c) == 0 {
				t.Fatal("PR 3 got no reply")
			}
			if reply := c[len(c)-1].Body; !strings.Contains(reply, tc.want) || strings.Contains(reply, "stale plan") {
				t.Errorf("PR 3's reply is not about what changed while it waited (%q):\n%s", tc.want, reply)
			}
			if cloud := h.cloudObjects(); len(cloud) != 2 {
				t.Errorf("cloud holds %v, want Vms web and a", cloud)
			}
		})
	}
}

// TestPRCannotClaimLeasesOnAWholeLockState (issue 41, attacker): PR 3's
// own kyku.yaml says leases: true for a state the default branch keeps
// under the whole-state lock (leases: false). The bot opens the state
// from the default branch's config, so PR 3's apply is requeued behind
// PR 2's, as any other: it never races PR 2's apply into the lock (whose
// timeout here is 1ms), and the state keeps PR 2's change.
func TestPRCannotClaimLeasesOnAWholeLockState(t *testing.T) {
	g := newGate("a")
	h, s, bucket := s3Project(t, harnessOpts{sim: g.wrap, lockTimeout: time.Millisecond}, "", false, configV1+vmA, configV1+vmB)
	t.Cleanup(g.open)
	h.gh.SetFile(repoName, headB, "kyku.yaml", []byte(configV1+vmB+s3Backend(s, bucket, true)))
	openPRs(t, h)
	h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 1501))
	waitFor(t, "PR 2's apply never created a", g.entered)
	h.deliver("issue_comment", commentOn(t, 3, "writer", "User", "/kyku apply", 1502))
	eventually(t, "PR 3's apply, claiming leases, was not requeued behind PR 2's", func() bool {
		m := h.metrics()
		return m[requeuedApply] == 2 && m["kyku_bot_queue_depth"] == 1 && m["kyku_bot_jobs_running"] == 1
	})
	g.open()
	h.settle()
	m := h.metrics()
	if m[applied] != 1 || m[`kyku_bot_jobs_total{kind="apply",outcome="refused"}`] != 1 || m[`kyku_bot_jobs_total{kind="apply",outcome="error"}`] != 0 {
		t.Errorf("apply outcomes %v, want PR 2's applied and PR 3's refused (stale), no error", m)
	}
	for _, c := range h.botComments(3) {
		if strings.Contains(c.Body, "lock") {
			t.Errorf("PR 3's reply is about the lock:\n%s", c.Body)
		}
	}
	if cloud := h.cloudObjects(); len(cloud) != 2 {
		t.Errorf("cloud holds %v, want Vms web and a", cloud)
	}
	// The state holds what the cloud does: PR 2's a beside web.
	h.pr(4, headA)
	h.gh.AddReview(repoName, 4, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})
	h.deliver("pull_request", prOpened(t, 4, headA))
	h.settle()
	if c := h.botComments(4); len(c) == 0 || !strings.Contains(c[len(c)-1].Body, "No changes") {
		t.Errorf("a plan of PR 2's config after the applies is not empty: %+v", c)
	}
}

// TestRequeuedApplySurvivesARestart (issue 41): replica A is shut down
// while PR 3's apply waits requeued behind PR 2's (held in its rules);
// replica B takes both jobs over and runs both, PR 3's judged there, and
// no job record is left.
func TestRequeuedApplySurvivesARestart(t *testing.T) {
	_, open := botStore(t)
	hold := bot.Rules{Comment: func(ctx context.Context, d review.Deps, s review.Settings, ev review.CommentEvent) (*review.CommentOutcome, error) {
		<-ctx.Done() // PR 2's apply holds the environment until A stops it
		return nil, ctx.Err()
	}}
	a, _, _ := s3Project(t, harnessOpts{rules: hold, store: open(), replica: "replica-a", lease: time.Hour}, "", false, configV1+vmA, configV1+vmB)
	openPRs(t, a)
	a.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 1601))
	eventually(t, "PR 2's apply did not start", func() bool { return a.metrics()[requeuedApply] == 1 && a.metrics()["kyku_bot_jobs_running"] == 1 })
	a.deliver("issue_comment", commentOn(t, 3, "writer", "User", "/kyku apply", 1602))
	eventually(t, "PR 3's apply was not requeued", func() bool { return a.metrics()[requeuedApply] == 2 && a.metrics()["kyku_bot_queue_depth"] == 1 })
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if err := a.bot.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("A's shutdown = %v, want its deadline (PR 2's apply held)", err)
	}
	store := open()
	if keys := jobKeys(t, store); len(keys) != 2 {
		t.Fatalf("job records after A stopped: %v, want both applies'", keys)
	}
	b := a.replica(harnessOpts{store: store, replica: "replica-b", lease: time.Hour})
	eventually(t, "B did not run both applies", func() bool {
		m := b.metrics()
		return m[applied] == 1 && m[`kyku_bot_jobs_total{kind="apply",outcome="refused"}`] == 1
	})
	b.settle()
	eventually(t, "job records were left", func() bool { return len(jobKeys(t, store)) == 0 })
	// B took the two over in either order: the second is judged after the
	// first, its plan stale.
	stale := 0
	for _, n := range []int{2, 3} {
		c := b.botComments(n)
		if len(c) == 0 || !strings.Contains(c[len(c)-1].Body, "<!-- kyku:apply") {
			t.Fatalf("PR %d's apply got no reply on B: %+v", n, c)
		}
		if strings.Contains(c[len(c)-1].Body, "is a stale plan") {
			stale++
		}
	}
	if stale != 1 {
		t.Errorf("%d applies refused as stale, want the second", stale)
	}
}
