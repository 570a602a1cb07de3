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
	// run does the task's work while holding one of the parallelism slots.
	// It may return a settle step (making the work durable: its journal
	// entry), which runs after the slot is freed; the task finishes — its
	// dependents may start — only when settle has returned.
	run func(ctx context.Context) (settle func(context.Context) error, err error)
	// skip is called instead of run when a dependency failed or the run
	// was stopped before the task started.
	skip func(cause error)
}

// failedDep is the cause handed to skip when a dependency failed.
type failedDep struct{ id int }

func (f failedDep) Error() string { return fmt.Sprintf("dependency %d failed", f.id) }

// taskEvent is what a task's goroutine reports: its slot is free, and/or
// it finished (with err).
type taskEvent struct {
	id       int
	err      error
	freed    bool
	finished bool
}

// schedule runs tasks as soon as their dependencies have finished, at most
// parallelism running at once (a ready queue, not a barrier per level). A
// task's settle step runs outside the slots, so a worker moves on to the
// next ready task while the finished one is made durable: settles waiting
// at the same time share one journal commit (group commit), and no
// dependent starts before its dependencies settled. A failed task skips its
// transitive dependents; independent tasks carry on. When stop is
// cancelled no new task starts (the rest are skipped) but started ones
// finish: they get work, a context that stop does not cancel. A panic in a
// task is recovered and reported as its error. It returns the error of each
// failed task by id.
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
	var (
		ready    = make([]int, 0, n)
		events   = make(chan taskEvent, parallelism)
		errs     = map[int]error{}
		done     = make([]bool, n)
		running  int // holding a slot
		inflight int // started, not finished
		left     = n
		wg       sync.WaitGroup
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
			inflight++
			wg.Add(1)
			go func(t *task) {
				defer wg.Done()
				settle, err := runTask(work, t)
				if err != nil || settle == nil {
					events <- taskEvent{id: t.id, err: err, freed: true, finished: true}
					return
				}
				events <- taskEvent{id: t.id, freed: true}
				events <- taskEvent{id: t.id, err: settleTask(work, settle), finished: true}
			}(tasks[id])
		}
		if stop.Err() != nil {
			for _, id := range ready {
				skipTree(id, stop.Err())
			}
			ready = ready[:0]
			if inflight == 0 {
				// Everything not yet started is skipped.
				for id := range tasks {
					if !done[id] {
						skipTree(id, stop.Err())
					}
				}
				break
			}
		}
		if inflight == 0 {
			// Nothing runnable yet tasks left: a cycle (a bug upstream).
			for id := range tasks {
				if !done[id] {
					skipTree(id, fmt.Errorf("dependency cycle in execution graph"))
				}
			}
			break
		}
		var ev taskEvent
		if stop.Err() != nil {
			ev = <-events
		} else {
			select {
			case ev = <-events:
			case <-stop.Done():
				continue
			}
		}
		if ev.freed {
			running--
		}
		if !ev.finished {
			continue
		}
		inflight--
		done[ev.id] = true
		left--
		if ev.err != nil {
			errs[ev.id] = ev.err
			for _, d := range dependents[ev.id] {
				skipTree(d, failedDep{id: ev.id})
			}
			continue
		}
		for _, d := range dependents[ev.id] {
			waiting[d]--
			if waiting[d] == 0 && !done[d] {
				ready = append(ready, d)
			}
		}
	}
	wg.Wait()
	return errs
}

// runTask runs t, turning a panic into its error.
func runTask(ctx context.Context, t *task) (settle func(context.Context) error, err error) {
	defer func() {
		if r := recover(); r != nil {
			settle, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	return t.run(ctx)
}

// settleTask runs a settle step, turning a panic into its error.
func settleTask(ctx context.Context, settle func(context.Context) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return settle(ctx)
}
