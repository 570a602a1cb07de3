package runner

import (
	"context"
	"errors"
	"log/slog"

	"github.com/kyku/action/internal/bot/jobs"
)

// leases renews the leases of the jobs this replica holds (every third of
// a lease) and looks for jobs nobody holds (at start, then every third of a
// lease, and whenever a job ends here), until ctx ends.
func (r *Runner) leases(ctx context.Context) {
	r.scan(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.kicks:
		case <-r.opts.After(r.jobs.Lease() / 3):
			r.renew(ctx)
		}
		r.scan(ctx)
	}
}

// renew renews every lease held; a lease that cannot be renewed past its
// deadline is lost.
func (r *Runner) renew(ctx context.Context) {
	r.held.Range(func(_, v any) bool {
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
		case !r.opts.Now().Before(t.job.Until()):
			t.lose(err)
		default:
			r.log.Warn("job lease not renewed, retrying", "job", t.job.Record().ID, "error", err.Error())
		}
		return true
	})
}

// scan takes over as many jobs nobody holds as there are idle workers, and
// queues them.
func (r *Runner) scan(ctx context.Context) {
	if r.draining.Load() || ctx.Err() != nil {
		return
	}
	limit := r.opts.Queue.Workers - r.queue.Running() - r.queue.Depth()
	if limit <= 0 {
		return
	}
	taken, bad, err := r.jobs.TakeOrphans(ctx, limit, r.holds)
	if err != nil && ctx.Err() == nil {
		r.log.Warn("looking for jobs left behind", "error", err.Error())
	}
	for _, b := range bad {
		r.log.Error("job record refused: it cannot be read, or it is not signed as the bot signs it", "key", b.Key, "error", b.Err.Error())
		r.opts.Resumed("refused")
		r.finish(ctx, b.Job)
	}
	for _, j := range taken {
		r.resume(ctx, j)
	}
}

func (r *Runner) finish(ctx context.Context, j *jobs.Job) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	if err := j.Finish(sctx); err != nil {
		r.log.Warn("job record not removed", "key", j.Key(), "error", err.Error())
	}
}

// resume queues a job taken over: its record must carry the webhook
// secret's HMAC of its body (a record planted in the store is not run),
// then it is turned into work as when it was delivered.
func (r *Runner) resume(ctx context.Context, j *jobs.Job) {
	rec := j.Record()
	log := r.log.With("job", rec.ID, "event", r.opts.Label(rec.Event), "accepted", rec.Accepted, "accepted_by", rec.AcceptedBy, "takeovers", rec.Takeovers)
	if !rec.Signed(r.opts.Secret) {
		log.Error("job record refused: its body does not carry the webhook secret's signature")
		r.opts.Resumed("refused")
		r.finish(ctx, j)
		return
	}
	if rec.Takeovers > maxTakeovers {
		log.Error("job given up: its worker stopped before it ended too many times", "max", maxTakeovers)
		r.opts.Resumed("given_up")
		r.finish(ctx, j)
		return
	}
	q, ignored, err := r.opts.Resume(rec)
	if err != nil || ignored != "" {
		log.Warn("job record holds no work", "ignored", ignored, "error", errText(err))
		r.finish(ctx, j)
		return
	}
	t := r.track(j)
	q = t.wrap(q, "")
	q.Attrs = append(q.Attrs, slog.String("delivery", rec.ID), slog.Bool("resumed", rec.Takeovers > 0))
	if err := r.queue.Submit(q); err != nil {
		t.done("", true) // given back: another replica, or a later scan, takes it
		return
	}
	if rec.Takeovers > 0 {
		r.opts.Resumed("taken_over")
		log.Info("job taken over: its worker stopped renewing its lease", "kind", q.Kind)
	} else {
		r.opts.Resumed("offered")
		log.Info("offered job taken", "kind", q.Kind)
	}
}

// abandonHeld gives back the leases still held at shutdown (jobs dropped
// before they ran, watchers stopped): another replica takes them over at
// once instead of after the lease.
func (r *Runner) abandonHeld() {
	r.held.Range(func(k, v any) bool {
		t := v.(*tracked)
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		if err := t.job.Abandon(ctx); err != nil {
			r.log.Warn("job lease not given back at shutdown (it expires)", "job", t.job.Record().ID, "error", err.Error())
		} else {
			r.log.Info("job left for another replica", "job", t.job.Record().ID)
		}
		cancel()
		t.cancel()
		r.held.Delete(k)
		return true
	})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
