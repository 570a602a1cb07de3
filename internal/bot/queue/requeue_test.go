package queue

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// steps records what the jobs of a test did, in order.
type steps struct {
	mu  sync.Mutex
	got []string
}

func (s *steps) add(step string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, step)
}

func (s *steps) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// requeueOnce is a job that asks to run again under key on its first run.
func requeueOnce(name, key string, s *steps) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		if !Requeued(ctx) {
			s.add(name + " requeued")
			return "", &Requeue{Key: key, Reason: "test"}
		}
		s.add(name + " ran")
		return "", nil
	}
}

// TestRequeuedJobWaitsWithoutAWorker: a job requeued behind a busy key
// gives its worker back at once (another key's job runs on it while it
// waits, with one worker left), and runs again once the busy key's job
// ended, knowing it was requeued; it finishes once (Done), its requeue
// observed apart (Requeued).
func TestRequeuedJobWaitsWithoutAWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		q := start(t, Options{Workers: 2, Done: rec.done, Requeued: rec.requeued})
		var s steps
		release := make(chan struct{})
		_ = q.Submit(Job{Kind: "apply", Key: "env", Run: func(context.Context) (string, error) {
			s.add("holder started")
			<-release
			s.add("holder ended")
			return "", nil
		}})
		synctest.Wait()
		_ = q.Submit(Job{Kind: "apply", Key: "env#pr-2", Run: requeueOnce("pr-2", "env", &s)})
		synctest.Wait()
		_ = q.Submit(Job{Kind: "plan", Key: "other", Run: func(context.Context) (string, error) { s.add("other ran"); return "", nil }})
		synctest.Wait()
		if n := q.Running(); n != 1 {
			t.Errorf("%d jobs running while one waits requeued, want the holder alone", n)
		}
		if n := q.Depth(); n != 1 {
			t.Errorf("depth %d, want the requeued job", n)
		}
		close(release)
		if err := q.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		want := []string{"holder started", "pr-2 requeued", "other ran", "holder ended", "pr-2 ran"}
		if diff := cmp.Diff(want, s.list()); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[string]int{"apply/ok": 2, "apply/requeue": 1, "plan/ok": 1}, rec.get()); diff != "" {
			t.Errorf("outcomes (-want +got):\n%s", diff)
		}
	})
}

// TestRequeuedJobKeepsItsPlace: the jobs queued behind a job under its
// first key wait for it to end under the key it moved to, so one pull
// request's jobs run in order.
func TestRequeuedJobKeepsItsPlace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := start(t, Options{Workers: 4})
		var s steps
		release := make(chan struct{})
		_ = q.Submit(Job{Kind: "apply", Key: "env", Run: func(context.Context) (string, error) { <-release; s.add("holder ended"); return "", nil }})
		synctest.Wait()
		_ = q.Submit(Job{Kind: "plan", Key: "env#pr-2", Run: requeueOnce("plan", "env", &s)})
		_ = q.Submit(Job{Kind: "apply", Key: "env#pr-2", Run: func(context.Context) (string, error) { s.add("apply ran"); return "", nil }})
		synctest.Wait()
		close(release)
		if err := q.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		want := []string{"plan requeued", "holder ended", "plan ran", "apply ran"}
		if diff := cmp.Diff(want, s.list()); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
	})
}

// TestRequeueIsGrantedOnce: a job asking again after it was requeued, or
// asking for its own key or none, ends in an error instead of looping.
func TestRequeueIsGrantedOnce(t *testing.T) {
	for _, tc := range []struct {
		name, key, to, again string // again: the key asked for on a second run
		want                 map[string]int
	}{
		{"asks twice", "env#pr-2", "env", "elsewhere", map[string]int{"apply/requeue": 1, "apply/error": 1}},
		{"its own key", "env", "env", "", map[string]int{"apply/error": 1}},
		{"no key", "env#pr-2", "", "", map[string]int{"apply/error": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := &recorder{}
				q := start(t, Options{Workers: 1, Done: rec.done, Requeued: rec.requeued})
				runs := 0
				_ = q.Submit(Job{Kind: "apply", Key: tc.key, Run: func(context.Context) (string, error) {
					runs++
					if runs > 1 {
						return "", &Requeue{Key: tc.again, Reason: "test"}
					}
					return "", &Requeue{Key: tc.to, Reason: "test"}
				}})
				if err := q.Shutdown(t.Context()); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, rec.get()); diff != "" {
					t.Errorf("outcomes after %d runs (-want +got):\n%s", runs, diff)
				}
			})
		})
	}
}

// TestRequeuedJobGetsItsWholeTimeout: the job's time limit starts when it
// runs again, not when it was first taken: waiting behind another key
// longer than the limit costs it nothing.
func TestRequeuedJobGetsItsWholeTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit = time.Minute
		q := start(t, Options{Workers: 2, Timeout: limit})
		release := make(chan struct{})
		_ = q.Submit(Job{Kind: "apply", Key: "env", Run: func(context.Context) (string, error) { <-release; return "", nil }})
		synctest.Wait()
		var left time.Duration
		_ = q.Submit(Job{Kind: "apply", Key: "env#pr-2", Run: func(ctx context.Context) (string, error) {
			if !Requeued(ctx) {
				return "", &Requeue{Key: "env", Reason: "test"}
			}
			deadline, _ := ctx.Deadline()
			left = time.Until(deadline)
			return "", ctx.Err()
		}})
		synctest.Wait()
		time.Sleep(3 * limit) // the holder runs long (the bubble's clock)
		close(release)
		if err := q.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		if left != limit {
			t.Errorf("the requeued run had %v left, want its whole %v", left, limit)
		}
	})
}

// TestShutdownRunsRequeuedWork: a queue draining still runs a job
// requeued by a job it had accepted.
func TestShutdownRunsRequeuedWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := start(t, Options{Workers: 1})
		var s steps
		_ = q.Submit(Job{Kind: "apply", Key: "env#pr-2", Run: requeueOnce("pr-2", "env", &s)})
		if err := q.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"pr-2 requeued", "pr-2 ran"}, s.list()); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
	})
}

// TestRequeuedJobIsTimedOnce: a requeued job is observed once when it
// finishes, with the time of both its runs, not the wait between them.
func TestRequeuedJobIsTimedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var got []time.Duration
		q := start(t, Options{Workers: 2, Done: func(kind, _ string, d time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			if kind == "plan" {
				got = append(got, d)
			}
		}})
		release := make(chan struct{})
		_ = q.Submit(Job{Kind: "apply", Key: "env", Run: func(context.Context) (string, error) { <-release; return "", nil }})
		synctest.Wait()
		_ = q.Submit(Job{Kind: "plan", Key: "env#pr-2", Run: func(ctx context.Context) (string, error) {
			if !Requeued(ctx) {
				time.Sleep(time.Second)
				return "", &Requeue{Key: "env", Reason: "test"}
			}
			time.Sleep(2 * time.Second)
			return "", nil
		}})
		synctest.Wait()
		time.Sleep(time.Hour) // waiting requeued
		close(release)
		if err := q.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]time.Duration{3 * time.Second}, got); diff != "" {
			t.Errorf("the requeued plan observed (-want +got):\n%s", diff)
		}
	})
}

// TestRequeueDroppedAtShutdownIsNotCounted: a job asking to run again
// as a stopping queue cancels it is dropped, and observed so (Done,
// OutcomeDropped), never as requeued.
func TestRequeueDroppedAtShutdownIsNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var requeued, outcomes []string
		q := start(t, Options{Workers: 1,
			Requeued: func(kind string) { mu.Lock(); defer mu.Unlock(); requeued = append(requeued, kind) },
			Done: func(kind, outcome string, _ time.Duration) {
				mu.Lock()
				defer mu.Unlock()
				outcomes = append(outcomes, kind+" "+outcome)
			}})
		_ = q.Submit(Job{Kind: "apply", Key: "env#pr-2", Run: func(ctx context.Context) (string, error) {
			<-ctx.Done() // cancelled by the stop
			return "", &Requeue{Key: "env", Reason: "test"}
		}})
		synctest.Wait()
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_ = q.Shutdown(ctx)
		mu.Lock()
		defer mu.Unlock()
		if len(requeued) != 0 {
			t.Errorf("counted requeued: %v", requeued)
		}
		if diff := cmp.Diff([]string{"apply " + OutcomeDropped}, outcomes); diff != "" {
			t.Errorf("observed (-want +got):\n%s", diff)
		}
	})
}
