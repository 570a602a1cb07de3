package engine

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// TestEachIndexCallsEachOnce: every index below n is done exactly once,
// on one goroutine or several, and at most workers at a time.
func TestEachIndexCallsEachOnce(t *testing.T) {
	for _, tt := range []struct{ n, workers int }{{0, 2}, {1, 2}, {3, 2}, {4, 2}, {1000, 2}, {1000, 8}, {1000, 1}} {
		t.Run(fmt.Sprintf("n=%d/workers=%d", tt.n, tt.workers), func(t *testing.T) {
			calls := make([]atomic.Int32, tt.n)
			var running, most atomic.Int32
			eachIndex(tt.n, tt.workers, func(i int) {
				now := running.Add(1)
				defer running.Add(-1)
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				calls[i].Add(1)
			})
			for i := range calls {
				if c := calls[i].Load(); c != 1 {
					t.Fatalf("index %d done %d times", i, c)
				}
			}
			if m := most.Load(); int(m) > max(tt.workers, 1) {
				t.Errorf("%d at a time, want at most %d", m, tt.workers)
			}
		})
	}
}
