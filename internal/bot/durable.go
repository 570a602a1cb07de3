package bot

import (
	"context"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/statemgr"
)

// Durable jobs (with a store, package jobs): a delivery is recorded before
// it is answered 202, with a lease this replica renews while any of its
// work is queued, running or watching a dispatched run. A delivery's work
// is its routing job and the jobs it spawns, one per target; each spawned
// job is a step of the record, marked done when it ends, so that a job
// taken over after its worker died runs only the steps not done yet — from
// scratch: a plan is planned again, an apply judged again under the state
// lock (package review re-checks everything), a dispatched run watched
// again rather than dispatched twice.

// DefaultLease is how long a job's lease lasts unrenewed by default; the
// worker renews it every third of that.
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
	b   *Bot
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
func (b *Bot) track(j *jobs.Job) *tracked {
	ctx, cancel := context.WithCancel(context.Background())
	t := &tracked{b: b, job: j, ctx: ctx, cancel: cancel}
	b.held.Store(j.Key(), t)
	return t
}

// holds reports whether this replica holds the job recorded at key.
func (b *Bot) holds(key string) bool {
	_, ok := b.held.Load(key)
	return ok
}

// wrap makes q a part of t: step ("" for the routing job) is marked done
// when q ends, unless it was interrupted.
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
		t.done(step, t.b.interrupted(ctx))
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
// the bot (its shutdown, a lost lease) rather than ending on its own.
func (b *Bot) interrupted(ctx context.Context) bool {
	return ctx.Err() != nil && (b.draining.Load() || errors.Is(context.Cause(ctx), context.Canceled))
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
			t.b.log.Warn("job step not recorded as done (it runs again if the job is taken over)", "job", t.job.Record().ID, "step", step, "error", err.Error())
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
	defer t.b.held.Delete(t.job.Key())
	defer t.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	id := t.job.Record().ID
	t.mu.Lock()
	interrupted := t.interrupted
	t.mu.Unlock()
	if interrupted || t.ctx.Err() != nil {
		if err := t.job.Abandon(ctx); err != nil {
			t.b.log.Warn("job lease not given back (it expires)", "job", id, "error", err.Error())
		}
		return
	}
	if err := t.job.Finish(ctx); err != nil {
		t.b.log.Warn("job record not removed", "job", id, "error", err.Error())
	}
	t.b.kickScan()
}

// withdraw removes t's record: the delivery it was made for is refused
// after all (the queue is full), and GitHub may deliver it again.
func (t *tracked) withdraw(ctx context.Context) {
	t.mu.Lock()
	t.ended = true
	t.mu.Unlock()
	t.b.held.Delete(t.job.Key())
	t.cancel()
	t.b.finish(ctx, t.job)
}

// lose stops t's work: its lease is another's now.
func (t *tracked) lose(err error) {
	t.mu.Lock()
	ended := t.ended
	t.mu.Unlock()
	if ended {
		return // it finished: its record and lease are gone
	}
	t.b.log.Error("job lease lost: its work stops here (another replica has taken it over)", "job", t.job.Record().ID, "error", err.Error())
	t.mu.Lock()
	t.interrupted = true
	t.mu.Unlock()
	t.cancel()
}

// spawn queues a follow-up job of the running job ctx belongs to: as a step
// of its durable job when there is one (skipped when the step was done
// before the job was taken over).
func (b *Bot) spawn(ctx context.Context, q queue.Job) error {
	ref := stepFrom(ctx)
	if ref == nil {
		return b.queue.Spawn(q)
	}
	step := q.Kind + " " + q.Key
	if ref.t.job.Step(step).Done {
		b.log.Info("job step skipped: it was done before the job was taken over", "job", ref.t.job.Record().ID, "step", step)
		return nil
	}
	w := ref.t.wrap(q, step)
	if err := b.queue.Spawn(w); err != nil {
		ref.t.done("", true)
		return err
	}
	return nil
}

// record records a change of step name's progress ("" for the current
// step; nothing without a durable job). A failure is logged, not fatal: at
// worst a takeover does the step's first part again.
func (b *Bot) record(ctx context.Context, name string, change func(*jobs.Step)) {
	ref := stepFrom(ctx)
	if ref == nil {
		return
	}
	if name == "" {
		name = ref.step
	}
	if name == "" {
		return
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	if err := ref.t.job.SetStep(sctx, name, change); err != nil {
		b.log.Warn("job step progress not recorded", "job", ref.t.job.Record().ID, "step", name, "error", err.Error())
	}
}

// progress is step name's progress ("" for the current step; zero without
// a durable job).
func (b *Bot) progress(ctx context.Context, name string) jobs.Step {
	ref := stepFrom(ctx)
	if ref == nil {
		return jobs.Step{}
	}
	if name == "" {
		name = ref.step
	}
	if name == "" {
		return jobs.Step{}
	}
	return ref.t.job.Step(name)
}

// leases renews the leases of the jobs this replica holds (every third of
// a lease) and looks for jobs nobody holds (at start, then every third of a
// lease, and whenever a job ends here), until ctx ends.
func (b *Bot) leases(ctx context.Context) {
	defer close(b.leasesDone)
	b.scan(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.scanKicks:
		case <-b.after(b.jobs.Lease() / 3):
			b.renew(ctx)
		}
		b.scan(ctx)
	}
}

func (b *Bot) kickScan() {
	select {
	case b.scanKicks <- struct{}{}:
	default:
	}
}

// renew renews every lease held; a lease that cannot be renewed past its
// deadline is lost.
func (b *Bot) renew(ctx context.Context) {
	b.held.Range(func(_, v any) bool {
		t := v.(*tracked)
		t.mu.Lock()
		ended := t.ended
		t.mu.Unlock()
		if ended || t.ctx.Err() != nil {
			return true // finishing: its record and lease go now
		}
		err := t.job.Renew(ctx)
		switch {
		case err == nil:
		case errors.Is(err, jobs.ErrLost):
			t.lose(err)
		case ctx.Err() != nil:
		case !b.now().Before(t.job.Until()):
			t.lose(err)
		default:
			b.log.Warn("job lease not renewed, retrying", "job", t.job.Record().ID, "error", err.Error())
		}
		return true
	})
}

// scan takes over as many jobs nobody holds as there are idle workers, and
// queues them.
func (b *Bot) scan(ctx context.Context) {
	if b.draining.Load() || ctx.Err() != nil {
		return
	}
	limit := b.workers - b.queue.Running() - b.queue.Depth()
	if limit <= 0 {
		return
	}
	taken, bad, err := b.jobs.TakeOrphans(ctx, limit, b.holds)
	if err != nil && ctx.Err() == nil {
		b.log.Warn("looking for jobs left behind", "error", err.Error())
	}
	for _, r := range bad {
		b.log.Error("job record refused: it cannot be read, or it is not signed as the bot signs it", "key", r.Key, "error", r.Err.Error())
		b.metrics.resumed("refused")
		b.finish(ctx, r.Job)
	}
	for _, j := range taken {
		b.resume(ctx, j)
	}
}

func (b *Bot) finish(ctx context.Context, j *jobs.Job) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	if err := j.Finish(sctx); err != nil {
		b.log.Warn("job record not removed", "key", j.Key(), "error", err.Error())
	}
}

// resume queues a job taken over: its record must carry the webhook
// secret's HMAC of its body (a record planted in the store is not run),
// then it is turned into work as when it was delivered.
func (b *Bot) resume(ctx context.Context, j *jobs.Job) {
	rec := j.Record()
	log := b.log.With("job", rec.ID, "event", eventLabel(rec.Event), "accepted", rec.Accepted, "accepted_by", rec.AcceptedBy, "takeovers", rec.Takeovers)
	mac, err := hex.DecodeString(rec.MAC)
	if err != nil || !validSignature(b.cfg.WebhookSecret, rec.Body, mac) {
		log.Error("job record refused: its body does not carry the webhook secret's signature")
		b.metrics.resumed("refused")
		b.finish(ctx, j)
		return
	}
	if rec.Takeovers > maxTakeovers {
		log.Error("job given up: its worker stopped before it ended too many times", "max", maxTakeovers)
		b.metrics.resumed("given_up")
		b.finish(ctx, j)
		return
	}
	q, ignored, err := b.recordJob(rec)
	if err != nil || ignored != "" {
		log.Warn("job record holds no work", "ignored", ignored, "error", errText(err))
		b.finish(ctx, j)
		return
	}
	t := b.track(j)
	q = t.wrap(q, "")
	q.Attrs = append(q.Attrs, slog.String("delivery", rec.ID), slog.Bool("resumed", rec.Takeovers > 0))
	if err := b.queue.Submit(q); err != nil {
		t.done("", true) // given back: another replica, or a later scan, takes it
		return
	}
	if rec.Takeovers > 0 {
		b.metrics.resumed("taken_over")
		log.Info("job taken over: its worker stopped renewing its lease", "kind", q.Kind)
	} else {
		b.metrics.resumed("offered")
		log.Info("offered job taken", "kind", q.Kind)
	}
}

// recordJob turns a record into its routing job: a webhook as intake does,
// or the bot's own scheduled work.
func (b *Bot) recordJob(rec jobs.Record) (queue.Job, string, error) {
	if rec.Event == eventScheduledDrift {
		q, err := b.scheduledDriftJob(rec.Body)
		return q, "", err
	}
	return b.intake(rec.Event, rec.Body)
}

// abandonHeld gives back the leases still held at shutdown (jobs dropped
// before they ran, watchers stopped): another replica takes them over at
// once instead of after the lease.
func (b *Bot) abandonHeld() {
	b.held.Range(func(k, v any) bool {
		t := v.(*tracked)
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		if err := t.job.Abandon(ctx); err != nil {
			b.log.Warn("job lease not given back at shutdown (it expires)", "job", t.job.Record().ID, "error", err.Error())
		} else {
			b.log.Info("job left for another replica", "job", t.job.Record().ID)
		}
		cancel()
		t.cancel()
		b.held.Delete(k)
		return true
	})
}

// leased counts the jobs this replica holds.
func (b *Bot) leased() int {
	n := 0
	b.held.Range(func(_, _ any) bool { n++; return true })
	return n
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// durableJobs is what the dispatch watchers need of durable jobs: each
// watch is a part of the job that started it.
type durableJobs struct{ b *Bot }

func (d durableJobs) Hold(ctx context.Context, step string) (context.Context, func(bool)) {
	ref := stepFrom(ctx)
	if ref == nil {
		return context.Background(), func(bool) {}
	}
	ref.t.add()
	return ref.t.ctx, func(interrupted bool) { ref.t.done(step, interrupted) }
}

func (d durableJobs) Record(ctx context.Context, step string, change func(*jobs.Step)) {
	d.b.record(ctx, step, change)
}

func (d durableJobs) Durable() bool { return d.b.jobs != nil }
