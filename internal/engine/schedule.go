package engine

import (
	"context"
	"fmt"
	"sync"
)

// task is one node of an execution DAG.
type task struct {
	id   int
	deps []int // tasks that must finish (successfully) first
	run  func(ctx context.Context) error
	// skip is called instead of run when a dependency failed or the run
	// was stopped before the task started.
	skip func(cause error)
}

// failedDep is the cause handed to skip when a dependency failed.
type failedDep struct{ id int }

func (f failedDep) Error() string { return fmt.Sprintf("dependency %d failed", f.id) }

// schedule runs tasks as soon as their dependencies have finished, at most
// parallelism at once (a ready queue, not a barrier per level). A failed
// task skips its transitive dependents; independent tasks carry on. When
// stop is cancelled no new task starts (the rest are skipped) but running
// ones finish: they get work, a context that stop does not cancel. A panic
// in a task is recovered and reported as its error. It returns the error of
// each failed task by id.
func schedule(stop, work context.Context, tasks []*task, parallelism int) map[int]error {
	n := len(tasks)
	waiting := make([]int, n)
	dependents := make([][]int, n)
	for _, t := range tasks {
		waiting[t.id] = len(t.deps)
		for _, d := range t.deps {
			dependents[d] = append(dependents[d], t.id)
		}
	}
	type result struct {
		id  int
		err error
	}
	var (
		ready   []int
		results = make(chan result)
		errs    = map[int]error{}
		done    = make([]bool, n)
		running int
		left    = n
		wg      sync.WaitGroup
	)
	for _, t := range tasks {
		if waiting[t.id] == 0 {
			ready = append(ready, t.id)
		}
	}
	var skipTree func(id int, cause error)
	skipTree = func(id int, cause error) {
		if done[id] {
			return
		}
		done[id] = true
		left--
		if tasks[id].skip != nil {
			tasks[id].skip(cause)
		}
		for _, d := range dependents[id] {
			skipTree(d, failedDep{id: id})
		}
	}
	for left > 0 {
		for len(ready) > 0 && running < parallelism && stop.Err() == nil {
			id := ready[0]
			ready = ready[1:]
			if done[id] {
				continue
			}
			running++
			wg.Add(1)
			go func(t *task) {
				defer wg.Done()
				var err error
				func() {
					defer func() {
						if r := recover(); r != nil {
							err = fmt.Errorf("panic: %v", r)
						}
					}()
					err = t.run(work)
				}()
				results <- result{t.id, err}
			}(tasks[id])
		}
		if stop.Err() != nil {
			for _, id := range ready {
				skipTree(id, stop.Err())
			}
			ready = nil
			if running == 0 {
				// Everything not yet started is skipped.
				for id := range tasks {
					if !done[id] {
						skipTree(id, stop.Err())
					}
				}
				break
			}
		}
		if running == 0 {
			// Nothing runnable yet tasks left: a cycle (a bug upstream).
			for id := range tasks {
				if !done[id] {
					skipTree(id, fmt.Errorf("dependency cycle in execution graph"))
				}
			}
			break
		}
		var r result
		if stop.Err() != nil {
			r = <-results
		} else {
			select {
			case r = <-results:
			case <-stop.Done():
				continue
			}
		}
		running--
		done[r.id] = true
		left--
		if r.err != nil {
			errs[r.id] = r.err
			for _, d := range dependents[r.id] {
				skipTree(d, failedDep{id: r.id})
			}
			continue
		}
		for _, d := range dependents[r.id] {
			waiting[d]--
			if waiting[d] == 0 && !done[d] {
				ready = append(ready, d)
			}
		}
	}
	wg.Wait()
	return errs
}
