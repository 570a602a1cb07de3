package engine

import (
	"context"
	"errors"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

type fakeTasks struct {
	mu      sync.Mutex
	tasks   []*task
	log     []string
	skipped []int
}

func (f *fakeTasks) add(deps []int, run func(ctx context.Context) error) int {
	id := len(f.tasks)
	f.tasks = append(f.tasks, &task{id: id, deps: deps, run: func(ctx context.Context) (func(context.Context) error, error) { return nil, run(ctx) }, skip: func(error) {
		f.mu.Lock()
		f.skipped = append(f.skipped, id)
		f.mu.Unlock()
	}})
	return id
}

func (f *fakeTasks) note(s string) {
	f.mu.Lock()
	f.log = append(f.log, s)
	f.mu.Unlock()
}

func TestScheduleStartsWhenDependenciesFinishNotPerLevel(t *testing.T) {
	var f fakeTasks
	release := make(chan struct{})
	slow := f.add(nil, func(context.Context) error { <-release; f.note("slow done"); return nil })
	fast := f.add(nil, func(context.Context) error { f.note("fast done"); return nil })
	f.add([]int{fast}, func(context.Context) error {
		f.note("child of fast ran")
		close(release) // would deadlock under a per-level barrier
		return nil
	})
	f.add([]int{slow}, func(context.Context) error { f.note("child of slow ran"); return nil })
	errs := schedule(t.Context(), t.Context(), f.tasks, 4)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	want := []string{"fast done", "child of fast ran", "slow done", "child of slow ran"}
	if diff := cmp.Diff(want, f.log); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// At most parallelism tasks run at once, and the slots stay busy: on
// synctest's clock, 30 tasks of 2ms on 3 slots take 20ms.
func TestScheduleBoundsParallelism(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var f fakeTasks
		var running, peak atomic.Int32
		for i := 0; i < 30; i++ {
			f.add(nil, func(context.Context) error {
				n := running.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				time.Sleep(2 * time.Millisecond)
				running.Add(-1)
				return nil
			})
		}
		start := time.Now()
		schedule(t.Context(), t.Context(), f.tasks, 3)
		if got := peak.Load(); got != 3 {
			t.Errorf("peak concurrency = %d, want 3", got)
		}
		if took := time.Since(start); took != 20*time.Millisecond {
			t.Errorf("30 tasks of 2ms on 3 slots took %v, want 20ms", took)
		}
	})
}

func TestScheduleFailureSkipsTransitiveDependents(t *testing.T) {
	var f fakeTasks
	boom := errors.New("boom")
	a := f.add(nil, func(context.Context) error { return boom })
	b := f.add([]int{a}, func(context.Context) error { t.Error("dependent of a failed task ran"); return nil })
	f.add([]int{b}, func(context.Context) error { t.Error("grandchild ran"); return nil })
	var ran atomic.Bool
	f.add(nil, func(context.Context) error { ran.Store(true); return nil })
	p := f.add(nil, func(context.Context) error { panic("kaboom") })
	errs := schedule(t.Context(), t.Context(), f.tasks, 2)
	if !errors.Is(errs[a], boom) {
		t.Errorf("errs[a] = %v", errs[a])
	}
	if errs[p] == nil || errs[p].Error() != "panic: kaboom" {
		t.Errorf("panic not recovered as an error: %v", errs[p])
	}
	if !ran.Load() {
		t.Error("independent task did not run")
	}
	sort.Ints(f.skipped)
	if diff := cmp.Diff([]int{1, 2}, f.skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

// Once stop is cancelled no task starts, and the running one finishes
// with a context stop does not cancel (its 10ms on synctest's clock).
func TestScheduleStopLetsRunningFinish(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var f fakeTasks
		stop, cancel := context.WithCancel(t.Context())
		var finished atomic.Bool
		started := make(chan struct{})
		first := f.add(nil, func(ctx context.Context) error {
			close(started)
			cancel()
			time.Sleep(10 * time.Millisecond)
			if ctx.Err() != nil {
				t.Error("running task's context was cancelled by stop")
			}
			finished.Store(true)
			return nil
		})
		f.add([]int{first}, func(context.Context) error { t.Error("task started after stop"); return nil })
		f.add(nil, func(context.Context) error { t.Error("queued task started after stop"); return nil })
		schedule(stop, t.Context(), f.tasks, 1)
		<-started
		if !finished.Load() {
			t.Error("schedule returned before the running task finished")
		}
		if len(f.skipped) != 2 {
			t.Errorf("skipped = %v, want the two unstarted tasks", f.skipped)
		}
	})
}

// A settle step runs outside the parallelism slots: with one slot, an
// independent task runs while the first one's settle waits, and the first
// one's dependent starts only after its settle returned.
func TestScheduleSettleFreesSlotButHoldsDependents(t *testing.T) {
	var f fakeTasks
	release := make(chan struct{})
	var settled atomic.Bool
	a := len(f.tasks)
	f.tasks = append(f.tasks, &task{id: a, run: func(context.Context) (func(context.Context) error, error) {
		f.note("a ran")
		return func(context.Context) error {
			<-release
			settled.Store(true)
			f.note("a settled")
			return nil
		}, nil
	}})
	f.add(nil, func(context.Context) error {
		f.note("b ran")
		close(release) // would deadlock if a's settle held the only slot
		return nil
	})
	f.add([]int{a}, func(context.Context) error {
		if !settled.Load() {
			t.Error("a dependent started before its dependency settled")
		}
		f.note("child of a ran")
		return nil
	})
	if errs := schedule(t.Context(), t.Context(), f.tasks, 1); len(errs) != 0 {
		t.Fatal(errs)
	}
	want := []string{"a ran", "b ran", "a settled", "child of a ran"}
	if diff := cmp.Diff(want, f.log); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// Settle steps waiting at once (on a slow journal) hold a goroutine each:
// at most settlersPer per slot run, and the workers wait for them rather
// than starting more; when the journal catches up everything finishes.
// In a synctest bubble, synctest.Wait returns once every goroutine waits:
// the settles have piled up as far as they may.
func TestScheduleBoundsWaitingSettles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var f fakeTasks
		gate := make(chan struct{})
		var running, most, settled atomic.Int32
		for range 200 {
			id := len(f.tasks)
			f.tasks = append(f.tasks, &task{id: id, run: func(context.Context) (func(context.Context) error, error) {
				return func(context.Context) error {
					n := running.Add(1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					<-gate
					running.Add(-1)
					settled.Add(1)
					return nil
				}, nil
			}})
		}
		const parallelism = 3
		result := make(chan map[int]error, 1)
		go func() { result <- schedule(t.Context(), t.Context(), f.tasks, parallelism) }()
		synctest.Wait()
		if got := running.Load(); got != settlersPer*parallelism {
			t.Errorf("%d settle steps waiting once the workers stopped, want %d", got, settlersPer*parallelism)
		}
		close(gate)
		if errs := <-result; len(errs) != 0 {
			t.Fatal(errs)
		}
		if got := settled.Load(); got != 200 {
			t.Errorf("%d of 200 tasks settled", got)
		}
		if got := most.Load(); got != settlersPer*parallelism {
			t.Errorf("%d settle steps waited at once, want at most (and, piled up, exactly) %d", got, settlersPer*parallelism)
		}
	})
}

// A failed settle fails its task and skips its dependents.
func TestScheduleSettleFailureSkipsDependents(t *testing.T) {
	var f fakeTasks
	boom := errors.New("journal full")
	a := len(f.tasks)
	f.tasks = append(f.tasks, &task{id: a, run: func(context.Context) (func(context.Context) error, error) {
		return func(context.Context) error { return boom }, nil
	}})
	f.add([]int{a}, func(context.Context) error { t.Error("dependent of a failed settle ran"); return nil })
	errs := schedule(t.Context(), t.Context(), f.tasks, 2)
	if !errors.Is(errs[a], boom) {
		t.Errorf("errs[a] = %v", errs[a])
	}
	if diff := cmp.Diff([]int{1}, f.skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

// Among ready tasks, the one with the longest chain of dependents ahead
// starts first (then the one ready first).
func TestScheduleStartsLongestChainFirst(t *testing.T) {
	var f fakeTasks
	note := func(s string) func(context.Context) error {
		return func(context.Context) error { f.note(s); return nil }
	}
	f.add(nil, note("single"))
	head := f.add(nil, note("head of chain"))
	mid := f.add([]int{head}, note("middle"))
	f.add([]int{mid}, note("tail"))
	if errs := schedule(t.Context(), t.Context(), f.tasks, 1); len(errs) != 0 {
		t.Fatal(errs)
	}
	// tail and single are both one task from the end: single was ready first.
	want := []string{"head of chain", "middle", "single", "tail"}
	if diff := cmp.Diff(want, f.log); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// A stop cancelled from inside a task's settle step (an apply's progress
// hook, which runs there) keeps the task's dependents from starting: the
// scheduler reads the stop itself when the task finishes, not only when
// the goroutine watching it next runs (CI once saw an interrupted apply
// run every change after its first: the watcher ran last).
func TestScheduleStopFromASettleStepStartsNoDependent(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // the watcher runs last, as on a busy machine
	for range 50 {
		var f fakeTasks
		stop, cancel := context.WithCancel(t.Context())
		a := len(f.tasks)
		f.tasks = append(f.tasks, &task{id: a, run: func(context.Context) (func(context.Context) error, error) {
			return func(context.Context) error { cancel(); return nil }, nil
		}})
		f.add([]int{a}, func(context.Context) error {
			t.Error("dependent started after its dependency's settle stopped the run")
			return nil
		})
		f.add([]int{a}, func(context.Context) error {
			t.Error("dependent started after its dependency's settle stopped the run")
			return nil
		})
		if errs := schedule(stop, t.Context(), f.tasks, 1); len(errs) != 0 {
			t.Fatal(errs)
		}
		if len(f.skipped) != 2 {
			t.Fatalf("skipped = %v, want both dependents", f.skipped)
		}
	}
}
