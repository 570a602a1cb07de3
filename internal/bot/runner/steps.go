package runner

import (
	"context"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/queue"
)

// Spawn queues a follow-up job of the running job ctx belongs to: as a step
// of its durable job when there is one (skipped when the step was done
// before the job was taken over).
func (r *Runner) Spawn(ctx context.Context, q queue.Job) error {
	ref := stepFrom(ctx)
	if ref == nil {
		return r.queue.Spawn(q)
	}
	step := q.Kind + " " + q.Key
	if ref.t.job.Step(step).Done {
		r.log.Info("job step skipped: it was done before the job was taken over", "job", ref.t.job.Record().ID, "step", step)
		return nil
	}
	w := ref.t.wrap(q, step)
	if err := r.queue.Spawn(w); err != nil {
		ref.t.done("", true)
		return err
	}
	return nil
}

// Record records a change of step name's progress ("" for the current
// step; nothing without a durable job). A failure is logged, not fatal: at
// worst a takeover does the step's first part again.
func (r *Runner) Record(ctx context.Context, name string, change func(*jobs.Step)) {
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
		r.log.Warn("job step progress not recorded", "job", ref.t.job.Record().ID, "step", name, "error", err.Error())
	}
}

// Progress is step name's progress ("" for the current step; zero without
// a durable job).
func (r *Runner) Progress(ctx context.Context, name string) jobs.Step {
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

// Interrupted reports whether the durable job work whose context is ctx
// belongs to was stopped by the runner (its shutdown, a lost lease) rather
// than ending on its own: the replica that takes it over does it again.
// Never without a store.
func (r *Runner) Interrupted(ctx context.Context) bool {
	return r.jobs != nil && r.interrupted(ctx)
}

// Hold makes work started from ctx (a dispatched run's watch) a part of
// ctx's durable job: its lease is renewed until release; lost ends when
// the lease is lost. Without a durable job, lost never ends and release
// does nothing.
func (r *Runner) Hold(ctx context.Context, step string) (lost context.Context, release func(interrupted bool)) {
	ref := stepFrom(ctx)
	if ref == nil {
		return context.Background(), func(bool) {}
	}
	ref.t.add()
	return ref.t.ctx, func(interrupted bool) { ref.t.done(step, interrupted) }
}
