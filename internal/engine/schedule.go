package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// task is one node of an execution DAG.
type task struct {
	id   int
	deps []int // tasks that must finish (successfully) first
	// run does the task's work while holding one of the parallelism slots.
	// It may return a settle step (making the work durable: its journal
	// entry), which runs after the slot is freed; the task finishes — its
	// dependents may start — only when settle has returned. A settle
	// step must not wait for another task to run: settle steps run on a
	// bounded set of goroutines, and past it a worker waits for one.
	run func(ctx context.Context) (settle func(context.Context) error, err error)
	// skip is called instead of run when a dependency failed or the run
	// was stopped before the task started.
	skip func(cause error)
}

// failedDep is the cause handed to skip when a dependency failed.
type failedDep struct{ id int }

func (f failedDep) Error() string { return fmt.Sprintf("dependency %d failed", f.id) }

// schedule runs tasks as soon as their dependencies have finished, at most
// parallelism running at once (a ready queue, not a barrier per level):
// parallelism workers take the oldest ready task, so a worker freed by one
// task starts the next without a hop through a coordinator. A task's settle
// step runs outside the slots, so a worker moves on to the next ready task
// while the finished one is made durable: settles waiting at the same time
// share one journal commit (group commit), and no dependent starts before
// its dependencies settled. A failed task skips its transitive dependents;
// independent tasks carry on. When stop is cancelled no new task starts
// (the rest are skipped) but started ones finish: they get work, a context
// that stop does not cancel. A panic in a task is recovered and reported as
// its error. It returns the error of each failed task by id.
func schedule(stop, work context.Context, tasks []*task, parallelism int) map[int]error {
	s := newScheduler(tasks)
	s.stopCtx = stop
	if len(tasks) == 0 {
		return s.errs
	}
	var wg sync.WaitGroup
	s.settles = make(chan func())
	s.settlers = &wg
	s.maxSettlers = int32(settlersPer * max(parallelism, 1))
	for range min(parallelism, len(tasks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.work(work)
		}()
	}
	quit := make(chan struct{})
	go func() {
		select {
		case <-stop.Done():
			s.stop(stop.Err())
		case <-quit:
		}
	}()
	s.wait()
	close(quit)
	close(s.settles) // every started task finished: idle settlers exit
	wg.Wait()
	return s.errs
}

// scheduler is the shared state of one schedule; mu guards all of it.
type scheduler struct {
	mu         sync.Mutex
	cond       *sync.Cond // broadcast when ready, inflight or left change
	tasks      []*task
	waiting    []int   // unfinished dependencies per task
	dependents [][]int // task → tasks that depend on it
	ready      readyQueue
	done       []bool
	errs       map[int]error
	inflight   int   // started, not finished
	left       int   // neither finished nor skipped
	stopped    error // why no new task starts
	// stopCtx is read whenever a task would start or become ready: a
	// stop cancelled by a task's own step (a hook, an interrupt handler
	// that ran on its goroutine) is seen before the next task starts,
	// not whenever the goroutine watching it is scheduled.
	stopCtx context.Context
	// settles hands a settle step to an idle settler goroutine; with none
	// idle, a new one starts and then stays to serve (reused goroutines
	// keep the stacks they grew, as many settle at once as need to, so
	// all of them share the journal's commits).
	settles  chan func()
	settlers *sync.WaitGroup
	// nsettlers counts the settler goroutines started; past maxSettlers a
	// worker waits for one to be free instead of starting another. Each
	// settle step waiting on the journal's commit holds a goroutine and
	// its stack: unbounded, a fast provider and a slow fsync piled up
	// hundreds of them (11 MB of stacks in an apply of 5,000 resources),
	// while a group commit never needs more than the steps it can take
	// at once.
	nsettlers, maxSettlers int32
}

// settlersPer is how many settler goroutines may run per parallelism
// slot: room for the steps of one commit and of the next ones forming.
// Measured on an apply of 5,000 resources on the sim: at 2 a commit
// took fewer steps (about 860 fsyncs, against 560 at 4); at 8 the
// stacks came back (peak RSS 4 MB higher).
const settlersPer = 4

func newScheduler(tasks []*task) *scheduler {
	n := len(tasks)
	s := &scheduler{
		tasks: tasks, waiting: make([]int, n), dependents: make([][]int, n),
		done: make([]bool, n), errs: map[int]error{}, left: n,
	}
	s.cond = sync.NewCond(&s.mu)
	for _, t := range tasks {
		s.waiting[t.id] = len(t.deps)
		for _, d := range t.deps {
			s.dependents[d] = append(s.dependents[d], t.id)
		}
	}
	s.ready.height = heights(tasks, s.dependents)
	for _, t := range tasks {
		if s.waiting[t.id] == 0 {
			s.ready.push(t.id)
		}
	}
	return s
}

// heights is, per task, the number of tasks on the longest path from it to
// a task nothing depends on (itself included).
func heights(tasks []*task, dependents [][]int) []int {
	h := make([]int, len(tasks))
	pending := make([]int, len(tasks)) // dependents not yet measured
	var queue []int
	for _, t := range tasks {
		pending[t.id] = len(dependents[t.id])
		if pending[t.id] == 0 {
			queue = append(queue, t.id)
		}
	}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		best := 0
		for _, d := range dependents[id] {
			best = max(best, h[d])
		}
		h[id] = best + 1
		for _, dep := range tasks[id].deps {
			if pending[dep]--; pending[dep] == 0 {
				queue = append(queue, dep)
			}
		}
	}
	return h
}

// readyQueue holds the ready tasks, the one with the longest chain of
// dependents ahead first (then the one ready first): ending on the longest
// chains is what leaves slots idle at the end of an apply.
type readyQueue struct {
	height []int
	ids    []int // heap
	seq    []int // when each entry became ready, for ties
	n      int
}

func (q *readyQueue) len() int { return len(q.ids) }

func (q *readyQueue) less(i, j int) bool {
	hi, hj := q.height[q.ids[i]], q.height[q.ids[j]]
	if hi != hj {
		return hi > hj
	}
	return q.seq[i] < q.seq[j]
}

func (q *readyQueue) swap(i, j int) {
	q.ids[i], q.ids[j] = q.ids[j], q.ids[i]
	q.seq[i], q.seq[j] = q.seq[j], q.seq[i]
}

func (q *readyQueue) push(id int) {
	q.ids = append(q.ids, id)
	q.seq = append(q.seq, q.n)
	q.n++
	for i := len(q.ids) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.swap(i, p)
		i = p
	}
}

func (q *readyQueue) pop() int {
	id := q.ids[0]
	last := len(q.ids) - 1
	q.swap(0, last)
	q.ids, q.seq = q.ids[:last], q.seq[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(q.ids) && q.less(l, m) {
			m = l
		}
		if r < len(q.ids) && q.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		q.swap(i, m)
		i = m
	}
	return id
}

func (q *readyQueue) drain() []int {
	ids := q.ids
	q.ids, q.seq = nil, nil
	return ids
}

// work is one worker: it runs ready tasks until none will come.
func (s *scheduler) work(ctx context.Context) {
	s.mu.Lock()
	for {
		for s.ready.len() == 0 && s.left > 0 && s.stopped == nil && s.inflight > 0 {
			s.cond.Wait()
		}
		s.checkStop()
		if s.ready.len() == 0 || s.stopped != nil {
			s.mu.Unlock()
			return
		}
		id := s.ready.pop()
		s.inflight++
		s.mu.Unlock()

		settle, err := runTask(ctx, s.tasks[id])
		if err == nil && settle != nil {
			s.settle(func() { s.finish(id, settleTask(ctx, settle)) })
		} else {
			s.finish(id, err)
		}
		s.mu.Lock()
	}
}

// settle runs fn on an idle settler, or on a new one while fewer than
// maxSettlers run, or else on the first settler to be free (the worker
// waits for it: back-pressure on a journal that cannot keep up).
func (s *scheduler) settle(fn func()) {
	select {
	case s.settles <- fn:
	default:
		if atomic.AddInt32(&s.nsettlers, 1) > s.maxSettlers {
			atomic.AddInt32(&s.nsettlers, -1)
			s.settles <- fn
			return
		}
		s.settlers.Add(1)
		go func() {
			defer s.settlers.Done()
			fn()
			for fn := range s.settles {
				fn()
			}
		}()
	}
}

// finish records the end of a started task and readies its dependents.
func (s *scheduler) finish(id int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.cond.Broadcast()
	s.inflight--
	s.done[id] = true
	s.left--
	s.checkStop()
	if err != nil {
		s.errs[id] = err
		for _, d := range s.dependents[id] {
			s.skipTree(d, failedDep{id: id})
		}
		return
	}
	for _, d := range s.dependents[id] {
		s.waiting[d]--
		if s.waiting[d] == 0 && !s.done[d] {
			if s.stopped != nil {
				s.skipTree(d, s.stopped)
			} else {
				s.ready.push(d)
			}
		}
	}
}

// stop keeps any task from starting: the ready ones are skipped now, the
// others when they would become ready.
func (s *scheduler) stop(cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.cond.Broadcast()
	s.stopLocked(cause)
}

func (s *scheduler) stopLocked(cause error) {
	if s.left == 0 || s.stopped != nil {
		return
	}
	s.stopped = cause
	for _, id := range s.ready.drain() {
		s.skipTree(id, cause)
	}
}

// checkStop stops the schedule if its stop context is done. mu is held.
func (s *scheduler) checkStop() {
	if s.stopped == nil && s.stopCtx != nil {
		if err := s.stopCtx.Err(); err != nil {
			s.stopLocked(err)
		}
	}
}

// wait returns once every started task finished and nothing more will
// start, skipping what never could (after a stop, or in a cycle: a bug
// upstream).
func (s *scheduler) wait() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.left > 0 && (s.inflight > 0 || s.stopped == nil && s.ready.len() > 0) {
		s.cond.Wait()
	}
	cause := s.stopped
	if cause == nil {
		cause = fmt.Errorf("dependency cycle in execution graph")
	}
	for id := range s.tasks {
		if !s.done[id] {
			s.skipTree(id, cause)
		}
	}
	s.ready.drain()
	s.cond.Broadcast() // release waiting workers
}

// skipTree skips id and, transitively, what depends on it. mu is held.
func (s *scheduler) skipTree(id int, cause error) {
	if s.done[id] {
		return
	}
	s.done[id] = true
	s.left--
	if s.tasks[id].skip != nil {
		s.tasks[id].skip(cause)
	}
	for _, d := range s.dependents[id] {
		s.skipTree(d, failedDep{id: id})
	}
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
