package engine

import (
	"sync"
	"sync/atomic"
)

// eachIndex calls do(i) for every i below n on at most workers goroutines
// at a time, and returns once every call has. Each call must write only
// what is its own (the i-th of a slice): the caller reads the results in
// order, so they do not depend on the schedule.
func eachIndex(n, workers int, do func(i int)) {
	if n < 2*workers || workers < 2 {
		for i := range n {
			do(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				do(i)
			}
		})
	}
	wg.Wait()
}
