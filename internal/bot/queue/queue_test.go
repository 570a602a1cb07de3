package queue

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

type recorder struct {
	mu       sync.Mutex
	outcomes map[string]int
}

func (r *recorder) done(kind, outcome string, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.outcomes == nil {
		r.outcomes = map[string]int{}
	}
	r.outcomes[kind+"/"+outcome]++
}

// requeued records a requeue as kind/requeue: not an outcome.
func (r *recorder) requeued(kind string) { r.done(kind, "requeue", 0) }

func (r *recorder) get() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for k, v := range r.outcomes {
		out[k] = v
	}
	return out
}

func TestSameKeyNeverOverlapsAndKeepsOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := start(t, Options{Workers: 4})
		var mu sync.Mutex
		var order []int
		var inFlight, maxInFlight atomic.Int32
		for i := range 20 {
			err := q.Submit(Job{Kind: "apply", Key: "acme/infra:prod", Run: func(context.Context) (string, error) {
				n := inFlight.Add(1)
				for {
					m := maxInFlight.Load()
					if n <= m || maxInFlight.CompareAndSwap(m, n) {
						break
					}
				}
				time.Sleep(time.Millisecond)
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
				inFlight.Add(-1)
				return "", nil
			}})
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := q.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		if maxInFlight.Load() != 1 {
			t.Errorf("%d jobs of one key ran at once, want 1", maxInFlight.Load())
		}
		want := make([]int, 20)
		for i := range want {
			want[i] = i
		}
		if diff := cmp.Diff(want, order); diff != "" {
			t.Errorf("order (-want +got):\n%s", diff)
		}
	})
}

func TestDifferentKeysRunInParallel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := start(t, Options{Workers: 3})
		defer q.Shutdown(t.Context())
		var started sync.WaitGroup
		started.Add(3)
		release := make(chan struct{})
		for _, key := range []string{"a", "b", "c"} {
			if err := q.Submit(Job{Kind: "plan", Key: key, Run: func(context.Context) (string, error) {
				started.Done()
				<-release
				return "", nil
			}}); err != nil {
				t.Fatal(err)
			}
		}
		waitOrFail(t, &started, "three keys did not start together on three workers")
		close(release)
	})
}

func TestABlockedKeyDoesNotHoldWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := start(t, Options{Workers: 2})
		defer q.Shutdown(t.Context())
		release := make(chan struct{})
		for range 5 {
			_ = q.Submit(Job{Kind: "apply", Key: "busy", Run: func(context.Context) (string, error) { <-release; return "", nil }})
		}
		var other sync.WaitGroup
		other.Add(1)
		_ = q.Submit(Job{Kind: "plan", Key: "other", Run: func(context.Context) (string, error) { other.Done(); return "", nil }})
		waitOrFail(t, &other, "a job of another key waited behind a busy key")
		close(release)
	})
}

func TestCapacityAndClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := start(t, Options{Workers: 1, Capacity: 2})
		release := make(chan struct{})
		block := Job{Kind: "x", Run: func(context.Context) (string, error) { <-release; return "", nil }}
		_ = q.Submit(block)
		synctest.Wait() // the worker took the first job
		if err := q.Submit(block); err != nil {
			t.Fatal(err)
		}
		if err := q.Submit(block); err != nil {
			t.Fatal(err)
		}
		if err := q.Submit(block); !errors.Is(err, ErrFull) {
			t.Errorf("third waiting job: err = %v, want ErrFull", err)
		}
		if q.Depth() != 2 {
			t.Errorf("depth %d, want 2", q.Depth())
		}
		close(release)
		if err := q.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := q.Submit(block); !errors.Is(err, ErrClosed) {
			t.Errorf("after shutdown: err = %v, want ErrClosed", err)
		}
	})
}

func TestPanicIsRecoveredAndCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		q := start(t, Options{Workers: 1, Done: rec.done})
		_ = q.Submit(Job{Kind: "plan", Run: func(context.Context) (string, error) { panic("boom") }})
		_ = q.Submit(Job{Kind: "plan", Run: func(context.Context) (string, error) { return "", errors.New("bad") }})
		_ = q.Submit(Job{Kind: "plan", Run: func(context.Context) (string, error) { return "refused", nil }})
		_ = q.Submit(Job{Kind: "plan", Run: func(context.Context) (string, error) { return "", nil }})
		if err := q.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"plan/panic": 1, "plan/error": 1, "plan/refused": 1, "plan/ok": 1}
		if diff := cmp.Diff(want, rec.get()); diff != "" {
			t.Errorf("outcomes (-want +got):\n%s", diff)
		}
	})
}

func TestShutdownDrainsSpawnedWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		q := start(t, Options{Workers: 2, Done: rec.done})
		var ran atomic.Int32
		_ = q.Submit(Job{Kind: "route", Run: func(context.Context) (string, error) {
			time.Sleep(20 * time.Millisecond) // Shutdown is called meanwhile
			for range 3 {
				if err := q.Spawn(Job{Kind: "plan", Key: "k", Run: func(context.Context) (string, error) { ran.Add(1); return "", nil }}); err != nil {
					return "", err
				}
			}
			return "", nil
		}})
		time.Sleep(5 * time.Millisecond)
		if err := q.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		if ran.Load() != 3 {
			t.Errorf("%d spawned jobs ran before Shutdown returned, want 3", ran.Load())
		}
	})
}

func TestShutdownDeadlineCancelsRunningAndDropsPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		q := start(t, Options{Workers: 1, Done: rec.done})
		started := make(chan struct{})
		_ = q.Submit(Job{Kind: "apply", Run: func(ctx context.Context) (string, error) {
			close(started)
			<-ctx.Done() // an apply stops starting changes and returns
			return "interrupted", ctx.Err()
		}})
		_ = q.Submit(Job{Kind: "plan", Run: func(context.Context) (string, error) { return "", nil }})
		<-started
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
		defer cancel()
		if err := q.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Shutdown = %v, want the deadline", err)
		}
		want := map[string]int{"apply/interrupted": 1, "plan/dropped": 1}
		if diff := cmp.Diff(want, rec.get()); diff != "" {
			t.Errorf("outcomes (-want +got):\n%s", diff)
		}
		if q.Running() != 0 {
			t.Errorf("%d jobs still running after Shutdown", q.Running())
		}
	})
}

// start runs a queue, in the test's bubble, until the test ends: Shutdown
// (when the test did not call it), then Run must have returned.
func start(t *testing.T, o Options) *Queue {
	t.Helper()
	q := New(o)
	done := make(chan error, 1)
	// Not t.Context: the cleanup stops the queue with Shutdown, after
	// t.Context has ended.
	go func() { done <- q.Run(context.Background()) }()
	synctest.Wait() // the workers wait for jobs
	t.Cleanup(func() {
		// t.Context has ended here.
		if err := q.Shutdown(context.Background()); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	return q
}

func waitOrFail(t *testing.T, wg *sync.WaitGroup, msg string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal(msg)
	}
}

// TestRunStopsWhenItsContextEnds: Run's context ending stops the queue at
// once, as Shutdown's deadline does: the running job is cancelled, the
// waiting one dropped, nothing is taken after, and Run says why.
func TestRunStopsWhenItsContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		q := New(Options{Workers: 1, Done: rec.done})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- q.Run(ctx) }()
		_ = q.Submit(Job{Kind: "apply", Run: func(ctx context.Context) (string, error) {
			<-ctx.Done()
			return "interrupted", ctx.Err()
		}})
		_ = q.Submit(Job{Kind: "plan", Run: func(context.Context) (string, error) { return "", nil }})
		synctest.Wait()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want its context's error", err)
		}
		want := map[string]int{"apply/interrupted": 1, "plan/dropped": 1}
		if diff := cmp.Diff(want, rec.get()); diff != "" {
			t.Errorf("outcomes (-want +got):\n%s", diff)
		}
		if err := q.Submit(Job{Kind: "plan"}); !errors.Is(err, ErrClosed) {
			t.Errorf("Submit after Run stopped = %v, want ErrClosed", err)
		}
	})
}

// TestShutdownBeforeRun: a queue shut down before it ran drops what it
// holds, and its Run returns at once.
func TestShutdownBeforeRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		q := New(Options{Workers: 1, Done: rec.done})
		_ = q.Submit(Job{Kind: "plan", Run: func(context.Context) (string, error) { return "", nil }})
		if err := q.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := q.Run(t.Context()); err != nil {
			t.Errorf("Run after Shutdown = %v", err)
		}
		if diff := cmp.Diff(map[string]int{"plan/dropped": 1}, rec.get()); diff != "" {
			t.Errorf("outcomes (-want +got):\n%s", diff)
		}
	})
}
