package engine_test

import (
	"testing"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/progress"
)

// TestExecutingSpansTheChanges: Options.Executing is called once an apply
// starts running its changes, after its plan, and what it returned once
// every change has ended, before the state is written; an apply without
// changes and a plan call neither.
func TestExecutingSpansTheChanges(t *testing.T) {
	w := newWorld(t)
	var calls, dones int
	var eventsAtCall, eventsAtDone int
	count := func() int {
		w.events.mu.Lock()
		defer w.events.mu.Unlock()
		n := 0
		for _, e := range w.events.events {
			if e.Kind == progress.Started || e.Kind == progress.Done {
				n++
			}
		}
		return n
	}
	e := w.engine(func(o *engine.Options) {
		o.Executing = func() func() {
			calls++
			eventsAtCall = count()
			return func() {
				dones++
				eventsAtDone = count()
			}
		}
	})
	mustPlan(t, e, parse(t, stack))
	if calls != 0 {
		t.Fatalf("a plan called Executing %d times, want none", calls)
	}
	res := mustApply(t, e, parse(t, stack))
	if calls != 1 || dones != 1 {
		t.Fatalf("an apply of %d changes: Executing called %d times, its done %d; want once each", len(res.Succeeded), calls, dones)
	}
	if eventsAtCall != 0 || eventsAtDone != 2*len(res.Succeeded) {
		t.Errorf("Executing called after %d events and done after %d; want before the first change started and after all %d ended", eventsAtCall, eventsAtDone, len(res.Succeeded))
	}
	mustApply(t, e, parse(t, stack))
	if calls != 1 {
		t.Errorf("an apply without changes called Executing: %d calls in all, want 1", calls)
	}
}
