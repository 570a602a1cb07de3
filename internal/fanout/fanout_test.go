package fanout

import (
	"sync/atomic"
	"testing"
)

// TestEachCallsEachOnce: every index is called exactly once, on any
// number of workers.
func TestEachCallsEachOnce(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 64} {
		calls := make([]atomic.Int32, 100)
		Each(len(calls), workers, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if n := calls[i].Load(); n != 1 {
				t.Errorf("workers %d: index %d called %d times", workers, i, n)
			}
		}
	}
}

// TestEachPanicsOnTheCaller: a call's panic is raised again on the
// caller's goroutine, where recover sees it, once the others returned;
// the process goes on.
func TestEachPanicsOnTheCaller(t *testing.T) {
	var done atomic.Int32
	got := func() (r any) {
		defer func() { r = recover() }()
		Each(50, 4, func(i int) {
			if i == 7 {
				panic("bad input")
			}
			done.Add(1)
		})
		return nil
	}()
	if got != "bad input" {
		t.Fatalf("recovered %v, want the call's panic", got)
	}
	if done.Load() == 0 {
		t.Error("no other call ran")
	}
}
