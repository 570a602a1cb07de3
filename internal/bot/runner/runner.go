package runner

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/lifecycle"
	"github.com/kyku/action/internal/bot/queue"
)

// Options configure a Runner.
type Options struct {
	Queue queue.Options
	// Store records the jobs accepted (package jobs); nil: jobs are lost
	// with the process.
	Store *jobs.Store
	// Secret is the webhook secret: a job record runs again only when its
	// body carries its MAC.
	Secret []byte
	// Replica names this process in the state locks its jobs take.
	Replica string
	// Resume turns a record taken over back into its routing job, as when
	// it was delivered (ignored: it holds no work).
	Resume func(rec jobs.Record) (job queue.Job, ignored string, err error)
	// Label is the log label of a record's event (default: the event).
	Label func(event string) string
	// Resumed counts each job left behind and taken here, by result:
	// taken_over, offered, refused, given_up.
	Resumed func(result string)
	Now     func() time.Time
	// After waits between lease renewals and looks for jobs left behind
	// (default time.After).
	After  func(time.Duration) <-chan time.Time
	Logger *slog.Logger
}

// Runner runs the bot's jobs.
type Runner struct {
	opts     Options
	log      *slog.Logger
	queue    *queue.Queue
	jobs     *jobs.Store // nil without a store
	held     sync.Map    // record key -> *tracked
	kicks    chan struct{}
	draining atomic.Bool
	gate     lifecycle.Gate
}

// New returns a runner; Run starts its workers.
func New(o Options) *Runner {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Queue.Logger = o.Logger
	if o.Queue.Workers <= 0 {
		o.Queue.Workers = 4
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.After == nil {
		o.After = time.After
	}
	if o.Label == nil {
		o.Label = func(e string) string { return e }
	}
	if o.Resumed == nil {
		o.Resumed = func(string) {}
	}
	return &Runner{opts: o, log: o.Logger, queue: queue.New(o.Queue), jobs: o.Store, kicks: make(chan struct{}, 1)}
}

// Run runs the workers and, with a store, renews the leases of the jobs
// held here and takes over the jobs left behind, until Shutdown. When ctx
// ends first, jobs not started are dropped, running ones cancelled, and the
// leases still held given back.
func (r *Runner) Run(ctx context.Context) error {
	if ok, err := r.gate.Enter(); !ok {
		return err
	}
	defer r.gate.Exit()
	var wg sync.WaitGroup
	var qerr error
	wg.Go(func() { qerr = r.queue.Run(ctx) })
	lctx, stop := r.gate.Bind(ctx)
	if r.jobs != nil {
		r.leases(lctx)
	} else {
		<-lctx.Done()
	}
	stop()
	wg.Wait()
	if ctx.Err() != nil {
		r.abandonHeld()
		return ctx.Err()
	}
	return qerr
}

// Drain stops taking work (Submit and Accept fail with queue.ErrClosed)
// and waits until what was accepted has run; when ctx ends first, jobs not
// started are dropped and running ones cancelled, and Drain still waits
// for them (package queue). Leases are still renewed.
func (r *Runner) Drain(ctx context.Context) error {
	r.draining.Store(true)
	return r.queue.Shutdown(ctx)
}

// Shutdown drains (unless Drain did), then stops renewing leases and gives
// back the ones still held, so that another replica takes those jobs over
// at once.
func (r *Runner) Shutdown(ctx context.Context) error {
	err := r.Drain(ctx)
	r.gate.Stop()
	_ = r.gate.Wait(context.WithoutCancel(ctx)) // the lease loop stops at once
	r.abandonHeld()
	return err
}

// Submit queues a job not recorded in the store (a drift round's, without
// one): queue.ErrFull, queue.ErrClosed.
func (r *Runner) Submit(job queue.Job) error { return r.queue.Submit(job) }

// Accept queues job, a delivery's first. With a store, rec is recorded
// first: jobs.ErrExists when it was already, the store's error when it
// cannot be; a record whose job cannot be queued (queue.ErrFull,
// queue.ErrClosed) is removed again.
func (r *Runner) Accept(ctx context.Context, rec jobs.Record, job queue.Job) error {
	var t *tracked
	if r.jobs != nil {
		j, err := r.jobs.Accept(ctx, rec)
		if err != nil {
			return err
		}
		t = r.track(j)
		job = t.wrap(job, "")
	}
	if err := r.queue.Submit(job); err != nil {
		if t != nil {
			t.withdraw(ctx)
		}
		return err
	}
	return nil
}

// Kick looks for jobs nobody holds now (offered work was just recorded).
func (r *Runner) Kick() {
	select {
	case r.kicks <- struct{}{}:
	default:
	}
}

// Durable reports whether jobs are recorded in a store.
func (r *Runner) Durable() bool { return r.jobs != nil }

// Depth is the number of jobs queued and not started.
func (r *Runner) Depth() int { return r.queue.Depth() }

// Running is the number of jobs running.
func (r *Runner) Running() int { return r.queue.Running() }

// Leased counts the durable jobs this replica holds.
func (r *Runner) Leased() int {
	n := 0
	r.held.Range(func(_, _ any) bool { n++; return true })
	return n
}
