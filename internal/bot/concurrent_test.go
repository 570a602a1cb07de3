package bot_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

// leasedProject is a harness whose project keeps its state in a bucket of
// its own with leases: true, with the default settings (the jobs of
// different pull requests run at once). PR 2's head adds Vm "a" (and has "b" as the
// default branch has it), PR 3's adds "b" or, with overlap, changes what
// PR 2 changes.
func leasedProject(t *testing.T, o harnessOpts, headAConfig, headBConfig string) (*harness, *s3test.Server, string) {
	t.Helper()
	return s3Project(t, o, "", true, headAConfig, headBConfig)
}

// s3Project is leasedProject with the given .kyku/config.yaml (none when
// "") and leases on or off.
func s3Project(t *testing.T, o harnessOpts, botSettings string, leases bool, headAConfig, headBConfig string) (*harness, *s3test.Server, string) {
	t.Helper()
	s := s3test.Require(t)
	bucket := s.NewBucket(t)
	t.Setenv("AWS_ACCESS_KEY_ID", s.Access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s.Secret)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	backend := s3Backend(s, bucket, leases)
	o.backend, o.policy = backend, testPolicy(bucket)
	h := newHarness(t, o)
	if botSettings != "" {
		h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(botSettings))
	}
	h.gh.SetFile(repoName, headA, "kyku.yaml", []byte(headAConfig+backend))
	h.gh.SetFile(repoName, headB, "kyku.yaml", []byte(headBConfig+backend))
	// The default branch's project is applied: the state the pull
	// requests plan on.
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(configV1 + backend)}})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := h.openRepo(t.Context(), cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := ws.Engine.Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil); err != nil || res.Err() != nil {
		t.Fatalf("apply the default branch: %v / %v", err, res.Err())
	}
	return h, s, bucket
}

// s3Backend is the backend block of a state in bucket on the S3 server s.
func s3Backend(s *s3test.Server, bucket string, leases bool) string {
	return fmt.Sprintf("backend:\n  type: s3\n  bucket: %s\n  region: %s\n  endpoint: %s\n  usePathStyle: true\n  leases: %t\n",
		bucket, s.Region, s.Endpoint, leases)
}

const vmA = "  a:\n    type: Vm\n    properties: { image: debian-12 }\n"
const vmB = "  b:\n    type: Vm\n    properties: { image: debian-12 }\n"

// openPRs opens PRs 2 (headA) and 3 (headB), approved, planned.
func openPRs(t *testing.T, h *harness) {
	t.Helper()
	for _, pr := range []struct {
		n   int
		sha string
	}{{2, headA}, {3, headB}} {
		h.pr(pr.n, pr.sha)
		h.gh.AddReview(repoName, pr.n, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: pr.sha})
		h.deliver("pull_request", prOpened(t, pr.n, pr.sha))
	}
	h.gh.SetPermission(repoName, "writer", "write")
	h.settle()
}

// TestTwoPRsOnDisjointObjectsApplyAtOnce: with leases, two pull requests
// planned on the same state, one adding Vm "a", the other Vm "b", apply
// at once (the bot runs both jobs together, neither waits for the other),
// both apply, and neither reverts the other's object although each
// branch lacks it.
func TestTwoPRsOnDisjointObjectsApplyAtOnce(t *testing.T) {
	var inFlight, maxInFlight atomic.Int32
	rules := bot.Rules{Comment: func(ctx context.Context, d review.Deps, s review.Settings, ev review.CommentEvent) (*review.CommentOutcome, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := maxInFlight.Load(); n > m && !maxInFlight.CompareAndSwap(m, n); m = maxInFlight.Load() {
		}
		time.Sleep(100 * time.Millisecond) // both are in here at once when neither waits
		return review.Comment(ctx, d, s, ev)
	}}
	h, _, _ := leasedProject(t, harnessOpts{rules: rules}, configV1+vmA, configV1+vmB)
	openPRs(t, h)

	var wg sync.WaitGroup
	for i, n := range []int{2, 3} {
		wg.Go(func() { h.deliver("issue_comment", commentOn(t, n, "writer", "User", "/kyku apply", int64(700+i))) })
	}
	wg.Wait()
	h.settle()

	if maxInFlight.Load() != 2 {
		t.Errorf("%d applies ran at once, want 2 (disjoint pull requests do not wait)", maxInFlight.Load())
	}
	if m := h.metrics(); m[`kyku_bot_jobs_total{kind="apply",outcome="applied"}`] != 2 {
		for _, n := range []int{2, 3} {
			for _, c := range h.botComments(n) {
				t.Logf("#%d: %q", n, c.Body)
			}
		}
		t.Fatalf("applied %v, want 2", m[`kyku_bot_jobs_total{kind="apply",outcome="applied"}`])
	}
	if cloud := h.cloudObjects(); len(cloud) != 3 {
		t.Errorf("cloud holds %v, want Vms web, a and b", cloud)
	}
}

// TestOverlappingPRApplyNamesTheObjectsAndThePR: PRs 2 and 3 both add Vm
// "a". While PR 2's apply holds a's lease (a slow cloud), PR 3's apply
// waits for it and, past the lock timeout, is refused with a reply naming
// the object and pull request #2, changing nothing.
func TestOverlappingPRApplyNamesTheObjectsAndThePR(t *testing.T) {
	h, s, bucket := leasedProject(t, harnessOpts{lockTimeout: 300 * time.Millisecond}, configV1+vmA, configV1+vmA+vmB)
	openPRs(t, h)
	t.Setenv("KYKU_SIM_LATENCY", "1500ms") // PR 2's apply holds its leases a while
	h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 801))
	eventually(t, "PR 2's apply leases a", func() bool {
		for _, k := range s.Keys(t, bucket, "") {
			if strings.Contains(k, "leases/") {
				return true
			}
		}
		return false
	})
	h.deliver("issue_comment", commentOn(t, 3, "writer", "User", "/kyku apply", 802))
	h.settle()
	var reply string
	for _, c := range h.botComments(3) {
		reply = c.Body
	}
	for _, want := range []string{"`a`", "pull request #2"} {
		if !strings.Contains(reply, want) {
			t.Errorf("the reply does not name %s:\n%s", want, reply)
		}
	}
	if cloud := h.cloudObjects(); len(cloud) != 2 {
		t.Errorf("cloud holds %v, want web and PR 2's a", cloud)
	}
}

// TestPRBehindAppliesOnlyItsChanges: with leases, PR 3 (adds "b") is
// applied first; PR 2's branch, planned before and lacking "b", still
// applies its reviewed plan (create "a") and never destroys "b": it is
// planned again limited to its own changes.
func TestPRBehindAppliesOnlyItsChanges(t *testing.T) {
	h, _, _ := leasedProject(t, harnessOpts{}, configV1+vmA, configV1+vmB)
	openPRs(t, h)
	h.deliver("issue_comment", commentOn(t, 3, "writer", "User", "/kyku apply", 901))
	h.settle()
	h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 902))
	h.settle()
	if m := h.metrics(); m[`kyku_bot_jobs_total{kind="apply",outcome="applied"}`] != 2 {
		for _, c := range h.botComments(2) {
			t.Logf("#2: %s", c.Body)
		}
		t.Fatalf("applied %v, want 2", m[`kyku_bot_jobs_total{kind="apply",outcome="applied"}`])
	}
	if cloud := h.cloudObjects(); len(cloud) != 3 {
		t.Errorf("cloud holds %v, want Vms web, a and b (b kept)", cloud)
	}
}

// TestPRCannotTurnLeasesOnForItself: the backend comes from the default
// branch, never from a pull request: a PR whose configuration adds
// leases: true while the default branch's has none is applied under the
// whole-state lock, leasing nothing.
func TestPRCannotTurnLeasesOnForItself(t *testing.T) {
	h, s, bucket := leasedProject(t, harnessOpts{}, configV1+vmA, configV1+vmB)
	// The default branch turns leases off (they are the default).
	plain := fmt.Sprintf("backend:\n  type: s3\n  bucket: %s\n  region: %s\n  endpoint: %s\n  usePathStyle: true\n  leases: false\n", bucket, s.Region, s.Endpoint)
	h.gh.SetFile(repoName, defaultBranch, "kyku.yaml", []byte(configV1+plain))
	openPRs(t, h)
	t.Setenv("KYKU_SIM_LATENCY", "300ms")
	h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 811))
	sawLock, sawLease := false, false
	for !sawLock || h.metrics()["kyku_bot_jobs_running"] > 0 {
		for _, k := range s.Keys(t, bucket, "") {
			sawLock = sawLock || strings.HasSuffix(k, ".json.lock")
			sawLease = sawLease || strings.Contains(k, "leases/")
		}
		if h.metrics()[`kyku_bot_jobs_total{kind="apply",outcome="applied"}`] == 1 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.settle()
	if !sawLock || sawLease {
		t.Errorf("during the apply: whole-state lock seen %v, leases seen %v; want the lock, no leases", sawLock, sawLease)
	}
}
