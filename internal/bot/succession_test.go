package bot_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/jobs/jobstest"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

// forged marks a lock with another job and holder than the run's own
// (a statemgr.Successor that inherits nothing).
type forged struct{ as statemgr.LockInfo }

func (f forged) Mark(info statemgr.LockInfo) statemgr.LockInfo {
	info.Job, info.Who = f.as.Job, f.as.Who
	return info
}

func (forged) Succeeds(context.Context, statemgr.LockInfo) bool { return false }

// TestTakenOverPlanTakesOverItsStateLock: replica A dies in the middle of
// a pull request's plan, holding the project's state lock (simulated: its
// plan hangs holding the lock, ignoring its context, and it is cut off from
// the bot's store, so its lease lapses; its lock's heartbeat goes on).
// Replica B takes the job over and takes the lock over with it: the plan
// comment shows the plan, not a lock error, and B says what it took over.
// Tried against it: a lock A holds that names another job (even with
// A's real lease mark, which the job's record lists), and a person's lock
// with no job: B waits for those, as for any holder, and plans only once
// they are released. Local state with the store in memory; S3 state with
// the store on S3 when the tests' S3 server is there.
func TestTakenOverPlanTakesOverItsStateLock(t *testing.T) {
	for _, backend := range []string{"local", "s3"} {
		for _, tc := range []struct {
			name     string
			edit     func(statemgr.LockInfo) statemgr.LockInfo // nil: the lock as A's job marks it
			takeover bool
		}{
			{"the dead replica's lock", nil, true},
			{"a lock naming another job", func(i statemgr.LockInfo) statemgr.LockInfo {
				i.Job.ID = "another-delivery"
				return i
			}, false},
			{"a person's lock", func(i statemgr.LockInfo) statemgr.LockInfo {
				i.Job, i.Who = statemgr.LockJob{}, "alice@laptop"
				return i
			}, false},
		} {
			t.Run(backend+"/"+tc.name, func(t *testing.T) {
				testTakeover(t, backend, tc.edit, tc.takeover)
			})
		}
	}
}

func testTakeover(t *testing.T, backend string, edit func(statemgr.LockInfo) statemgr.LockInfo, takeover bool) {
	var store func() jobs.Objects
	extra, bucket := "", ""
	if backend == "s3" {
		s := s3test.Require(t)
		_, open := botStore(t) // sets the S3 server's credentials
		store = open
		bucket = s.NewBucket(t)
		extra = fmt.Sprintf("backend:\n  type: s3\n  bucket: %s\n  region: %s\n  endpoint: %s\n  usePathStyle: true\n", bucket, s.Region, s.Endpoint)
	} else {
		mem := jobstest.NewMemory()
		store = func() jobs.Objects { return mem }
	}
	const lease = 600 * time.Millisecond
	held := make(chan statemgr.LockInfo, 1)
	release := make(chan struct{})
	unlocked := make(chan error, 1)
	ruleA := bot.Rules{Plan: func(ctx context.Context, d review.Deps, req review.PlanRequest) (*review.PlanOutcome, error) {
		ws, err := d.Open(ctx, req.Trusted, req.Settings.Environment)
		if err != nil {
			return nil, err
		}
		lctx := ctx
		if edit != nil {
			// From A's own mark: the job's real lease, another ID.
			lctx = statemgr.WithSuccessor(ctx, forged{as: edit(statemgr.ForRun(ctx, statemgr.LockInfo{}))})
		}
		l, err := ws.Backend.Lock(lctx, statemgr.LockInfo{Operation: "plan"})
		if err != nil {
			return nil, err
		}
		held <- l.Info()
		<-release                                  // dead: deaf to its context, its lock left as it is
		unlocked <- l.Unlock(context.Background()) // maybe once the test ended: not its context
		return nil, errors.New("replica A was dead")
	}}
	storeA := &jobstest.Severable{Objects: store()}
	a := newHarness(t, harnessOpts{rules: ruleA, store: storeA, replica: "replica-a", lease: lease, backend: extra, policy: testPolicy(bucket)})
	defer close(release)
	a.pr(2, headA)
	a.deliver("pull_request", prOpened(t, 2, headA))
	var lock statemgr.LockInfo
	select {
	case lock = <-held:
	case <-time.After(20 * time.Second):
		t.Fatal("replica A never took the state lock")
	}
	if edit == nil && (lock.Job.ID == "" || lock.Job.Lease == "" || lock.Who != "kyku-bot@replica-a") {
		t.Errorf("A's lock names job %+v, holder %q; want its job, lease and replica", lock.Job, lock.Who)
	}
	storeA.Cut() // A is dead

	b := a.replica(harnessOpts{store: store(), replica: "replica-b", lease: lease})
	eventually(t, "replica B never took the job over", func() bool {
		return b.metrics()[`kyku_bot_jobs_resumed_total{result="taken_over"}`] == 1
	})
	planned := func() float64 { return b.metrics()[`kyku_bot_jobs_total{kind="plan",outcome="planned"}`] }
	if !takeover {
		// B waits for the lock: nothing is planned while A holds it.
		time.Sleep(2 * time.Second)
		if n := planned(); n != 0 || len(a.botComments(2)) != 0 {
			t.Fatalf("B planned (%v) or commented while the lock it must not take over was held", n)
		}
		release <- struct{}{} // A lets go after all
		if err := <-unlocked; err != nil {
			t.Errorf("A's lock was taken from it: %v", err)
		}
	}
	b.settle()
	eventually(t, "the job never ended", func() bool { return len(jobKeys(t, store())) == 0 })
	comments := a.botComments(2)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "worker") || strings.Contains(comments[0].Body, "locked") {
		t.Fatalf("plan comments %+v, want one showing the plan (worker), not a lock error", comments)
	}
	if n := planned(); n != 1 {
		t.Errorf("B planned %v times, want once", n)
	}
	if runs := a.gh.CheckRuns(repoName); len(runs) != 1 || runs[0].Conclusion != "success" {
		t.Errorf("check runs %+v, want the one A opened, completed by B", runs)
	}
	if got := strings.Contains(b.logs(), `"msg":"state lock taken over"`); got != takeover {
		t.Errorf("B logged a takeover: %v, want %v:\n%s", got, takeover, b.logs())
	}
	if takeover && !strings.Contains(b.logs(), `"holder":"kyku-bot@replica-a"`) {
		t.Errorf("B's log does not name the lock's holder:\n%s", b.logs())
	}
}
