package runner

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/statemgr"
)

// DefaultLease is how long a job's lease lasts unrenewed by default; the
// runner renews it every third of that.
const DefaultLease = time.Minute

// maxTakeovers bounds how often a job is taken over: one whose workers keep
// dying (a job that crashes the process, say) is given up, with a log line,
// instead of taking every replica down in turn.
const maxTakeovers = 3

// storeTimeout bounds a store write made on the side of a job (a step done,
// a lease given back).
const storeTimeout = 10 * time.Second

// tracked is a durable job this replica holds.
type tracked struct {
	r   *Runner
	job *jobs.Job
	// ctx is cancelled when the lease is lost: the job's work stops.
	ctx    context.Context
	cancel context.CancelFunc

	mu          sync.Mutex
	pending     int  // queue jobs and watchers not ended
	interrupted bool // some step stopped before it ended (shutdown, lease lost)
	ended       bool
}

// stepRef is what a running part of a durable job carries in its context.
type stepRef struct {
	t    *tracked
	step string // "" for the routing job
}

type stepKey struct{}

func stepFrom(ctx context.Context) *stepRef {
	r, _ := ctx.Value(stepKey{}).(*stepRef)
	return r
}

// track holds j: its lease is renewed until its work ends.
func (r *Runner) track(j *jobs.Job) *tracked {
	ctx, cancel := context.WithCancel(context.Background())
	t := &tracked{r: r, job: j, ctx: ctx, cancel: cancel}
	r.held.Store(j.Key(), t)
	return t
}

// holds reports whether this replica holds the job recorded at key.
func (r *Runner) holds(key string) bool {
	_, ok := r.held.Load(key)
	return ok
}

// wrap makes q a part of t: step ("" for the routing job) is marked done
// when q ends, unless it was interrupted or requeued (it runs again).
func (t *tracked) wrap(q queue.Job, step string) queue.Job {
	t.add()
	run := q.Run
	q.Run = func(ctx context.Context) (string, error) {
		ctx, stop := t.join(ctx)
		defer stop()
		ctx = context.WithValue(ctx, stepKey{}, &stepRef{t: t, step: step})
		// Every state lock the job's work takes names the job and its
		// lease; one that an earlier holder of the job left is taken over.
		ctx = statemgr.WithLockTakenOver(statemgr.WithSuccessor(ctx, t), t.lockTakenOver)
		outcome, err := run(ctx)
		if queue.WillRequeue(ctx, err) != nil {
			return outcome, err // it runs again: the step is not done
		}
		t.done(step, t.r.interrupted(ctx))
		return outcome, err
	}
	return q
}

// join is ctx, also cancelled when t's lease is lost.
func (t *tracked) join(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(t.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

// interrupted reports whether work whose context is ctx was stopped by
// the runner (its shutdown, a lost lease) rather than ending on its own.
func (r *Runner) interrupted(ctx context.Context) bool {
	return ctx.Err() != nil && (r.draining.Load() || errors.Is(context.Cause(ctx), context.Canceled))
}

func (t *tracked) add() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending++
}

// done ends one part of t; the last one ends t.
func (t *tracked) done(step string, interrupted bool) {
	if step != "" && !interrupted && t.ctx.Err() == nil {
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		err := t.job.SetStep(ctx, step, func(s *jobs.Step) { s.Done = true })
		cancel()
		if err != nil {
			t.r.log.Warn("job step not recorded as done (it runs again if the job is taken over)", "job", t.job.Record().ID, "step", step, "error", err.Error())
		}
	}
	t.mu.Lock()
	t.pending--
	t.interrupted = t.interrupted || interrupted
	last := t.pending == 0 && !t.ended
	if last {
		t.ended = true
	}
	t.mu.Unlock()
	if last {
		t.end()
	}
}

// end finishes t's record (its work is done) or, when a part was
// interrupted, gives its lease back so that another replica takes it over
// at once.
func (t *tracked) end() {
	defer t.r.held.Delete(t.job.Key())
	defer t.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	id := t.job.Record().ID
	t.mu.Lock()
	interrupted := t.interrupted
	t.mu.Unlock()
	if interrupted || t.ctx.Err() != nil {
		if err := t.job.Abandon(ctx); err != nil {
			t.r.log.Warn("job lease not given back (it expires)", "job", id, "error", err.Error())
		}
		return
	}
	if err := t.job.Finish(ctx); err != nil {
		t.r.log.Warn("job record not removed", "job", id, "error", err.Error())
	}
	t.r.Kick()
}

// withdraw removes t's record: the delivery it was made for is refused
// after all (the queue is full), and GitHub may deliver it again.
func (t *tracked) withdraw(ctx context.Context) {
	t.mu.Lock()
	t.ended = true
	t.mu.Unlock()
	t.r.held.Delete(t.job.Key())
	t.cancel()
	t.r.finish(ctx, t.job)
}

// lose stops t's work: its lease is another's now.
func (t *tracked) lose(err error) {
	t.mu.Lock()
	ended := t.ended
	t.mu.Unlock()
	if ended {
		return // it finished: its record and lease are gone
	}
	t.r.log.Error("job lease lost: its work stops here (another replica has taken it over)", "job", t.job.Record().ID, "error", err.Error())
	t.mu.Lock()
	t.interrupted = true
	t.mu.Unlock()
	t.cancel()
}
