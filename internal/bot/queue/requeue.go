package queue

import (
	"context"
	"errors"
)

// Requeue is returned by a job's Run to end its run and run it again,
// from the start, behind the jobs queued under Key, once. Its first key
// stays taken meanwhile: the jobs queued behind it there still wait for
// it, so a job that moves keeps its place among them, and it holds no
// worker while it waits. A job that was requeued already, or names its
// own key or none, is not requeued: its run ends with this as its error.
type Requeue struct {
	Key    string
	Reason string // logged
}

func (r *Requeue) Error() string { return "requeue under " + r.Key + ": " + r.Reason }

// runInfo is what the queue tells a run about itself through its context.
type runInfo struct {
	key      string
	requeued bool
}

type runInfoKey struct{}

func withRunInfo(ctx context.Context, j Job) context.Context {
	return context.WithValue(ctx, runInfoKey{}, runInfo{key: j.Key, requeued: j.requeued})
}

// Requeued reports whether the job running with ctx runs again after it
// asked to (Requeue): it will not be requeued a second time.
func Requeued(ctx context.Context) bool {
	info, _ := ctx.Value(runInfoKey{}).(runInfo)
	return info.requeued
}

// WillRequeue returns the Requeue that err asks for when the queue runs
// the job whose run ended with ctx and err again (nil when it does not:
// err asks for none, or one the queue refuses).
func WillRequeue(ctx context.Context, err error) *Requeue {
	var rq *Requeue
	if !errors.As(err, &rq) {
		return nil
	}
	info, ok := ctx.Value(runInfoKey{}).(runInfo)
	if !ok || info.requeued || rq.Key == "" || rq.Key == info.key {
		return nil
	}
	return rq
}

// requeue queues j again under rq.Key, behind that key's jobs, keeping
// j's key taken until it ends there (finish).
func (q *Queue) requeue(j Job, rq *Requeue) {
	q.mu.Lock()
	q.running--
	if q.stopped {
		q.releaseLocked(j.Key)
		q.cond.Broadcast()
		q.mu.Unlock()
		q.opts.Logger.Warn("job dropped at shutdown", append([]any{"kind", j.Kind}, attrsAny(j.Attrs)...)...)
		q.observe(j.Kind, OutcomeDropped, 0)
		return
	}
	j.held, j.Key, j.requeued = j.Key, rq.Key, true
	q.enqueueLocked(j)
	q.cond.Broadcast()
	q.mu.Unlock()
	// Counted once queued again: a job dropped at shutdown instead is
	// counted dropped, not requeued.
	if q.opts.Requeued != nil {
		q.opts.Requeued(j.Kind)
	}
}
