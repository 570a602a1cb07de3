package engine

import "github.com/kyku/action/internal/fanout"

// eachIndex calls do(i) for every i below n on at most workers goroutines
// at a time (in line when there are fewer than two per worker), and
// returns once every call has; a call's panic reaches the caller's
// goroutine (fanout.Each). Each call must write only what is its own
// (the i-th of a slice): the caller reads the results in order, so they
// do not depend on the schedule.
func eachIndex(n, workers int, do func(i int)) {
	if n < 2*workers {
		workers = 1
	}
	fanout.Each(n, workers, do)
}
