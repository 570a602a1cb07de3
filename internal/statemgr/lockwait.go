package statemgr

import (
	"context"
	mrand "math/rand/v2"
	"time"
)

// LockWait is how a Lock call waits for a held lock: until its timeout, or
// not at all when the timeout is negative, looking again every interval.
type LockWait struct {
	interval time.Duration
	timeout  time.Duration
	spread   bool
	told     bool        // the LockWaiting hook was called
	ends     time.Time   // zero: no waiting
	deadline *time.Timer // nil: no waiting
	poll     *time.Timer
}

// NewLockWait starts the wait's clock. With spread, each interval is
// spread by ±50% so that waiting contenders do not poll in step. Stop it
// when done.
func NewLockWait(timeout, interval time.Duration, spread bool) *LockWait {
	w := &LockWait{interval: interval, timeout: timeout, spread: spread, poll: time.NewTimer(time.Hour)}
	if timeout > 0 {
		w.deadline = time.NewTimer(timeout)
		w.ends = time.Now().Add(timeout)
	}
	return w
}

// Ends reports when the wait ends; false when it does not wait.
func (w *LockWait) Ends() (time.Time, bool) { return w.ends, !w.ends.IsZero() }

// Wait returns true when it is time to look at the lock again. Otherwise
// the wait is over, and cause says why: ctx's error, or nil when the
// timeout passed (or there is no waiting). holder is who holds the lock
// (nil: nobody known, as when retrying after a failed call): the first
// Wait for a holder tells ctx's LockWaiting hook.
func (w *LockWait) Wait(ctx context.Context, holder *LockInfo) (again bool, cause error) {
	if w.deadline == nil {
		return false, nil
	}
	if fn, ok := ctx.Value(lockWaitingKey{}).(LockWaiting); ok && holder != nil && !w.told {
		w.told = true
		fn(*holder, w.timeout)
	}
	d := w.interval
	if w.spread {
		d = d/2 + time.Duration(mrand.Int64N(int64(d)+1))
	}
	w.poll.Reset(d)
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-w.deadline.C:
		return false, nil
	case <-w.poll.C:
		return true, nil
	}
}

// Stop releases the wait's timers.
func (w *LockWait) Stop() {
	w.poll.Stop()
	if w.deadline != nil {
		w.deadline.Stop()
	}
}

// LockWaiting is told, once per Lock call, that the lock is held by holder
// and that Lock waits for it up to timeout: a front door says so (kyku
// prints one line) instead of hanging silently. It must not block.
type LockWaiting func(holder LockInfo, timeout time.Duration)

type lockWaitingKey struct{}

// WithLockWaiting returns ctx carrying fn for every Lock call made with it
// (through the engine, state commands and rekey alike).
func WithLockWaiting(ctx context.Context, fn LockWaiting) context.Context {
	return context.WithValue(ctx, lockWaitingKey{}, fn)
}
