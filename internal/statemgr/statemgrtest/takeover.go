package statemgrtest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/kyku/action/internal/statemgr"
)

// successor is a statemgr.Successor for the suite: it works for Job under
// Lease, and inherits the locks its job took under one of Earlier.
type successor struct {
	Job, Lease string
	Earlier    []string
}

// Mark names s's job and lease in info.
func (s successor) Mark(info statemgr.LockInfo) statemgr.LockInfo {
	info.Job = statemgr.LockJob{ID: s.Job, Lease: s.Lease}
	return info
}

// Succeeds accepts a lock of s's job taken under an earlier lease.
func (s successor) Succeeds(_ context.Context, holder statemgr.LockInfo) bool {
	return holder.Job.ID == s.Job && holder.Job.Lease != s.Lease && slices.Contains(s.Earlier, holder.Job.Lease)
}

// takenOver records what a LockTakenOver hook was told.
type takenOver struct {
	mu   sync.Mutex
	told []statemgr.LockInfo
	why  []statemgr.TakeoverReason
}

func (r *takenOver) hook(h statemgr.LockInfo, why statemgr.TakeoverReason) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.told, r.why = append(r.told, h), append(r.why, why)
}

func (r *takenOver) get() ([]statemgr.LockInfo, []statemgr.TakeoverReason) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.told), slices.Clone(r.why)
}

func testTakeover(t *testing.T, newBackend Factory) {
	ctx := context.Background()
	heir := successor{Job: "job-1", Lease: "lease-2", Earlier: []string{"lease-1", "lease-2"}}

	t.Run("the heir of a job takes over at once the lock its job took under an earlier lease", func(t *testing.T) {
		a, b, c := newBackend(t), newBackend(t), newBackend(t)
		la := mustLockCtx(t, statemgr.WithSuccessor(ctx, successor{Job: "job-1", Lease: "lease-1"}), a, NewLockInfo("plan"))
		if job := wantLocked(t, c).Job; job != (statemgr.LockJob{ID: "job-1", Lease: "lease-1"}) {
			t.Errorf("the lock names job %+v, want job-1 under lease-1", job)
		}
		var rec takenOver
		hctx := statemgr.WithLockTakenOver(statemgr.WithSuccessor(ctx, heir), rec.hook)
		// The old holder beats on (it does not know it lost its job): the
		// lock is not stale, and only the takeover lets the heir in.
		lb := mustLockCtx(t, hctx, b, NewLockInfo("plan"))
		told, why := rec.get()
		if len(told) != 1 || told[0].ID != la.Info().ID || why[0] != statemgr.JobResumed {
			t.Errorf("the hook was told %+v %v; want once, the old holder %s, JobResumed", told, why, la.Info().ID)
		}
		if h := wantLocked(t, c); h.ID != lb.Info().ID || h.Job.Lease != "lease-2" {
			t.Errorf("after the takeover the holder is %s under %+v, want the heir %s under lease-2", h.ID, h.Job, lb.Info().ID)
		}
		// The old holder's release reports the loss and leaves the heir's lock.
		if err := la.Unlock(ctx); err == nil {
			t.Error("the old holder's Unlock reported success after the takeover")
		}
		if h := wantLocked(t, c); h.ID != lb.Info().ID {
			t.Errorf("after the old holder released, the holder is %s, want the heir %s", h.ID, lb.Info().ID)
		}
		mustUnlock(t, lb)
	})

	// Each lock here is one the heir must wait for like anyone else.
	for _, tc := range []struct {
		name   string
		holder statemgr.Successor // nil: a person's run, no job
	}{
		{"another job's lock", successor{Job: "job-2", Lease: "lease-1"}},
		{"its job's lock under the lease the heir holds now (a live run of its own)", successor{Job: "job-1", Lease: "lease-2"}},
		{"its job's lock under a lease its job never had", successor{Job: "job-1", Lease: "forged"}},
		{"a person's lock", nil},
	} {
		t.Run("the heir waits for "+tc.name, func(t *testing.T) {
			a, b := newBackend(t), newBackend(t)
			actx := ctx
			if tc.holder != nil {
				actx = statemgr.WithSuccessor(ctx, tc.holder)
			}
			la := mustLockCtx(t, actx, a, NewLockInfo("apply"))
			defer mustUnlock(t, la)
			var rec takenOver
			l, err := b.Lock(statemgr.WithLockTakenOver(statemgr.WithSuccessor(ctx, heir), rec.hook), NewLockInfo("plan"))
			if err == nil {
				_ = l.Unlock(ctx)
				t.Fatal("the heir took over a lock it does not inherit")
			}
			var le *statemgr.LockedError
			if !errors.As(err, &le) || le.Holder.ID != la.Info().ID {
				t.Errorf("the heir's Lock = %v; want a LockedError naming %s", err, la.Info().ID)
			}
			if told, _ := rec.get(); len(told) != 0 {
				t.Errorf("the hook was told of a takeover: %+v", told)
			}
		})
	}
}
