package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/kyku/action/internal/bot/lifecycle"
)

// Errors of Submit and Spawn.
var (
	// ErrFull: the queue already holds Capacity jobs not yet started.
	ErrFull = errors.New("queue full")
	// ErrClosed: Shutdown was called; no new work is taken.
	ErrClosed = errors.New("queue closed")
)

// Outcomes the queue itself assigns.
const (
	OutcomeOK      = "ok"
	OutcomeError   = "error"
	OutcomePanic   = "panic"
	OutcomeDropped = "dropped" // never started: Shutdown's deadline passed
)

// Job is one unit of work.
type Job struct {
	Kind string // for metrics and logs, e.g. "plan"
	// Key serialises jobs: two jobs with the same non-empty key never run
	// at the same time and start in submission order (a job requeued
	// under another key keeps this one until it ends: see Requeue).
	Key string
	// Attrs are logged with the job's start and end (never secrets).
	Attrs []slog.Attr
	// Run does the work and returns its outcome label ("" means ok, or
	// error when err is set).
	Run func(ctx context.Context) (string, error)

	held     string        // the key it came from and keeps while requeued (Requeue)
	requeued bool          // it ran once and asked to run again (Requeue)
	ran      time.Duration // how long it ran before it was requeued
}

// Options configure a Queue.
type Options struct {
	Workers  int // default 4
	Capacity int // jobs accepted but not started; default 1000
	// Timeout bounds one job (default 30 minutes).
	Timeout time.Duration
	Logger  *slog.Logger
	// Done observes every finished (or dropped) job once, with its
	// outcome and how long it ran (a requeued job's runs added up).
	Done func(kind, outcome string, d time.Duration)
	// Requeued observes every job queued again (Requeue): not finished,
	// it reaches Done when it is.
	Requeued func(kind string)
	Now      func() time.Time
}

// Queue is a bounded, keyed work queue.
type Queue struct {
	opts   Options
	ctx    context.Context // parent of every job's context
	cancel context.CancelFunc

	mu      sync.Mutex
	cond    *sync.Cond
	ready   []Job
	waiting map[string][]Job // per key, behind the key's ready or running job
	active  map[string]bool  // keys with a job ready or running
	pending int              // ready + waiting
	running int
	closed  bool // no Submit
	stopped bool // drop what is left; workers exit
	gate    lifecycle.Gate
}

// New returns a queue; Run starts its workers.
func New(opts Options) *Queue {
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	if opts.Capacity <= 0 {
		opts.Capacity = 1000
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Minute
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	q := &Queue{opts: opts, waiting: map[string][]Job{}, active: map[string]bool{}}
	q.cond = sync.NewCond(&q.mu)
	q.ctx, q.cancel = context.WithCancel(context.Background())
	return q
}

// Run runs the workers until Shutdown has drained the queue. When ctx
// ends first, jobs not started are dropped and running ones cancelled, as
// when Shutdown's context ends, and Run returns ctx's error once every
// worker has returned.
func (q *Queue) Run(ctx context.Context) error {
	if ok, err := q.gate.Enter(); !ok {
		return err
	}
	defer q.gate.Exit()
	var wg sync.WaitGroup
	for range q.opts.Workers {
		wg.Go(q.worker)
	}
	workers := make(chan struct{})
	go func() {
		wg.Wait()
		close(workers)
	}()
	select {
	case <-workers:
		return nil
	case <-ctx.Done():
	}
	q.stop()
	<-workers
	return ctx.Err()
}

// Submit queues a job from outside (a webhook). It fails with ErrFull when
// Capacity jobs wait already, and with ErrClosed after Shutdown.
func (q *Queue) Submit(j Job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return ErrClosed
	}
	if q.pending >= q.opts.Capacity {
		return ErrFull
	}
	q.enqueueLocked(j)
	return nil
}

// Spawn queues a follow-up job from a running job (a fan-out to the
// projects an event touches). It is not bounded by Capacity, and is taken
// while Shutdown drains, as it finishes work already accepted.
func (q *Queue) Spawn(j Job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.stopped {
		return ErrClosed
	}
	q.enqueueLocked(j)
	return nil
}

func (q *Queue) enqueueLocked(j Job) {
	q.pending++
	if j.Key != "" && q.active[j.Key] {
		q.waiting[j.Key] = append(q.waiting[j.Key], j)
		return
	}
	if j.Key != "" {
		q.active[j.Key] = true
	}
	q.ready = append(q.ready, j)
	q.cond.Signal()
}

// Depth is the number of jobs accepted and not started.
func (q *Queue) Depth() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.pending
}

// Running is the number of jobs running.
func (q *Queue) Running() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.running
}

// Shutdown stops intake (Submit fails with ErrClosed) and waits until the
// workers have run everything accepted. If ctx ends first, jobs not yet
// started are dropped, running jobs' contexts are cancelled (the engine then
// stops starting changes, saves state and unlocks), and Shutdown still
// waits for them to return, then reports ctx's error. A queue that never
// ran drops what it holds.
func (q *Queue) Shutdown(ctx context.Context) error {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
	q.gate.Stop()
	if err := q.gate.Wait(ctx); err == nil {
		q.stop() // nothing left but what a queue that never ran holds
		return nil
	}
	q.stop()
	_ = q.gate.Wait(context.Background())
	return fmt.Errorf("shutdown: %w", ctx.Err())
}

// stop drops the jobs not started, cancels the running ones and makes the
// workers exit.
func (q *Queue) stop() {
	q.mu.Lock()
	q.closed, q.stopped = true, true
	dropped := append([]Job(nil), q.ready...)
	for _, js := range q.waiting {
		dropped = append(dropped, js...)
	}
	q.ready, q.waiting, q.pending = nil, map[string][]Job{}, 0
	q.cond.Broadcast()
	q.mu.Unlock()
	q.cancel()
	for _, j := range dropped {
		q.opts.Logger.Warn("job dropped at shutdown", append([]any{"kind", j.Kind}, attrsAny(j.Attrs)...)...)
		q.observe(j.Kind, OutcomeDropped, 0)
	}
}

// next blocks for a runnable job; ok is false when the worker should exit.
func (q *Queue) next() (Job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.ready) == 0 {
		// Exit once closed and nothing is pending or running that could
		// still spawn or release work.
		if q.stopped || (q.closed && q.pending == 0 && q.running == 0) {
			q.cond.Broadcast()
			return Job{}, false
		}
		q.cond.Wait()
	}
	j := q.ready[0]
	q.ready[0] = Job{}
	q.ready = q.ready[1:]
	q.pending--
	q.running++
	return j, true
}

// finish releases j's keys (its own, and the one it kept when it was
// requeued), promoting the next job waiting on each.
func (q *Queue) finish(j Job) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.running--
	q.releaseLocked(j.Key)
	q.releaseLocked(j.held)
	q.cond.Broadcast()
}

// releaseLocked gives key to the next job waiting on it, or frees it.
func (q *Queue) releaseLocked(key string) {
	if key == "" {
		return
	}
	if w := q.waiting[key]; len(w) > 0 && !q.stopped {
		q.ready = append(q.ready, w[0])
		if len(w) == 1 {
			delete(q.waiting, key)
		} else {
			q.waiting[key] = w[1:]
		}
		return
	}
	delete(q.active, key)
}

func (q *Queue) worker() {
	for {
		j, ok := q.next()
		if !ok {
			return
		}
		if rq, d := q.run(j); rq != nil {
			j.ran += d
			q.requeue(j, rq)
			continue
		}
		q.finish(j)
	}
}

// run runs j and returns the Requeue it asked for, when it is granted,
// and how long it ran.
func (q *Queue) run(j Job) (*Requeue, time.Duration) {
	log := q.opts.Logger.With(append([]any{"kind", j.Kind}, attrsAny(j.Attrs)...)...)
	ctx, cancel := context.WithTimeout(withRunInfo(q.ctx, j), q.opts.Timeout)
	defer cancel()
	start := q.opts.Now()
	outcome, err := q.call(ctx, j)
	d := q.opts.Now().Sub(start)
	if rq := WillRequeue(ctx, err); rq != nil {
		log.Info("job requeued", "key", rq.Key, "reason", rq.Reason, "duration", d)
		return rq, d
	}
	if err != nil {
		log.Error("job failed", "outcome", outcome, "duration", d, "error", err.Error())
	} else {
		log.Info("job done", "outcome", outcome, "duration", d)
	}
	q.observe(j.Kind, outcome, j.ran+d)
	return nil, d
}

// call runs j, turning a panic into the outcome "panic".
func (q *Queue) call(ctx context.Context, j Job) (outcome string, err error) {
	defer func() {
		if r := recover(); r != nil {
			outcome = OutcomePanic
			err = fmt.Errorf("job panicked: %v\n%s", r, debug.Stack())
		}
	}()
	outcome, err = j.Run(ctx)
	switch {
	case outcome != "":
	case err != nil:
		outcome = OutcomeError
	default:
		outcome = OutcomeOK
	}
	return outcome, err
}

func (q *Queue) observe(kind, outcome string, d time.Duration) {
	if q.opts.Done != nil {
		q.opts.Done(kind, outcome, d)
	}
}

func attrsAny(attrs []slog.Attr) []any {
	out := make([]any, len(attrs))
	for i, a := range attrs {
		out[i] = a
	}
	return out
}
