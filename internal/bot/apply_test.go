package bot_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

func TestApplyByReadOnlyUserIsRefusedWithAReply(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.pr(2, headA)
	h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})
	h.gh.SetPermission(repoName, "reader", "read")
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()

	h.deliver("issue_comment", commentOn(t, 2, "reader", "User", "/kyku apply", 501))
	h.settle()
	h.wantConversation(2, "apply-by-a-reader") // the refusal names the reader's permission
	if m := h.metrics(); m[`kyku_bot_jobs_total{kind="apply",outcome="refused"}`] != 1 {
		t.Errorf("apply jobs: %v", m)
	}
	if cloud := h.cloudObjects(); len(cloud) != 0 {
		t.Errorf("the refused apply created %v", cloud)
	}
}

// TestTwoPRsApplySerializedSecondIsStale: two PRs planned against the same
// state; their applies are requested at once. With concurrent-applies:
// false the bot runs them one after the other (the same
// project/environment), the first applies, the second
// finds its plan stale and is refused with a reply. With an S3 server
// (KYKU_TEST_S3_*, or versitygw from the CI cache; required under CI=true)
// the state, locks and saved plans live in S3, as in production.
func TestTwoPRsApplySerializedSecondIsStale(t *testing.T) {
	for _, backend := range []string{"local", "s3"} {
		t.Run(backend, func(t *testing.T) {
			extra, bucket := "", ""
			if backend == "s3" {
				s := s3test.Require(t)
				bucket = s.NewBucket(t)
				t.Setenv("AWS_ACCESS_KEY_ID", s.Access)
				t.Setenv("AWS_SECRET_ACCESS_KEY", s.Secret)
				t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
				extra = fmt.Sprintf("backend:\n  type: s3\n  bucket: %s\n  region: %s\n  endpoint: %s\n  usePathStyle: true\n",
					bucket, s.Region, s.Endpoint)
			}
			var inFlight, maxInFlight atomic.Int32
			rules := bot.Rules{Comment: func(ctx context.Context, d review.Deps, s review.Settings, ev review.CommentEvent) (*review.CommentOutcome, error) {
				n := inFlight.Add(1)
				defer inFlight.Add(-1)
				for m := maxInFlight.Load(); n > m && !maxInFlight.CompareAndSwap(m, n); m = maxInFlight.Load() {
				}
				time.Sleep(30 * time.Millisecond) // widen the window an overlap would need
				return review.Comment(ctx, d, s, ev)
			}}
			h := newHarness(t, harnessOpts{rules: rules, backend: extra, policy: testPolicy(bucket)})
			h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte("concurrent-applies: false\n"))
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

			var wg sync.WaitGroup
			for i, n := range []int{2, 3} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					h.deliver("issue_comment", commentOn(t, n, "writer", "User", "/kyku apply", int64(700+i)))
				}()
			}
			wg.Wait()
			h.settle()

			if maxInFlight.Load() != 1 {
				t.Errorf("%d applies of one project/environment ran at once, want 1", maxInFlight.Load())
			}
			m := h.metrics()
			if m[`kyku_bot_jobs_total{kind="apply",outcome="applied"}`] != 1 || m[`kyku_bot_jobs_total{kind="apply",outcome="refused"}`] != 1 {
				t.Fatalf("apply outcomes: applied %v refused %v, want 1 and 1",
					m[`kyku_bot_jobs_total{kind="apply",outcome="applied"}`], m[`kyku_bot_jobs_total{kind="apply",outcome="refused"}`])
			}
			stale := 0
			for _, n := range []int{2, 3} {
				for _, c := range h.botComments(n) {
					if strings.Contains(c.Body, "stale") {
						stale++
					}
				}
			}
			if stale != 1 {
				t.Errorf("%d replies say the plan is stale, want 1", stale)
			}
			if cloud := h.cloudObjects(); len(cloud) != 2 {
				t.Errorf("cloud holds %v, want the 2 Vms applied once", cloud)
			}
		})
	}
}

// cloudObjects lists the sim's objects.
func (h *harness) cloudObjects() []string {
	h.t.Helper()
	entries, err := os.ReadDir(h.cloudDir())
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		files, _ := os.ReadDir(filepath.Join(h.cloudDir(), e.Name()))
		for _, f := range files {
			if strings.HasSuffix(f.Name(), ".json") {
				out = append(out, e.Name()+"/"+f.Name())
			}
		}
	}
	return out
}
