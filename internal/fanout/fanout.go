// Package fanout runs independent calls on a bounded number of
// goroutines, as if they were made in line: a call's panic reaches the
// caller's goroutine (where a bot job's recover turns it into that job's
// failure) instead of ending the process.
package fanout

import (
	"sync"
	"sync/atomic"
)

// Each calls do(i) for every i below n on at most workers goroutines at
// a time and returns once every call has. Each call must write only what
// is its own (the i-th of a slice). When a call panics, the first panic
// is raised again on the caller's goroutine once every other has
// returned.
func Each(n, workers int, do func(i int)) {
	if n < 2 || workers < 2 {
		for i := range n {
			do(i)
		}
		return
	}
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		panicked bool
		reason   any
	)
	for range min(workers, n) {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					mu.Lock()
					if !panicked {
						panicked, reason = true, r
					}
					mu.Unlock()
				}
			}()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				do(i)
			}
		})
	}
	wg.Wait()
	if panicked {
		panic(reason)
	}
}
