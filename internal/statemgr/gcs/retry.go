package gcs

import (
	"context"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"syscall"
	"time"

	"cloud.google.com/go/storage"

	"github.com/kyku/action/internal/statemgr/objstore"
)

// Retry budgets (the defaults of Options.RetryBudget and AttemptTimeout;
// README "GCS"). The client library's own retries are switched off
// (storage.RetryNever): it never retries an unconditional write or delete,
// it cannot retry a single-request upload at all, it has no per-attempt
// timeout (a stalled connection eats the whole budget), and it cannot tell
// an operation that a lost answer may have landed.
const (
	DefaultRetryBudget    = 2 * time.Minute
	DefaultAttemptTimeout = 30 * time.Second
	defaultRetryBase      = 100 * time.Millisecond
	retryMaxDelay         = 5 * time.Second
)

// isTransient reports an error that another attempt may not meet: a reset
// or refused connection, a timed-out attempt, a truncated answer, 408, 429
// or a 5xx.
func isTransient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	if s := status(err); s >= 500 || s == http.StatusTooManyRequests || s == http.StatusRequestTimeout {
		return true
	}
	if s := status(err); s != 0 {
		return false // an answer the server meant: 404, 412, 403…
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	return storage.ShouldRetry(err)
}

// attemptOutcome says what a failed call leaves behind.
type attemptOutcome struct {
	attempts  int
	ambiguous bool // an attempt failed in a way that may have landed (a lost answer)
}

// retryPolicy is how calls are retried (Options.RetryBudget,
// AttemptTimeout, RetryBase, OnRetry).
type retryPolicy struct {
	budget, attemptTimeout, base time.Duration
	onRetry                      func(op string, err error)
}

func (p retryPolicy) withDefaults() retryPolicy {
	if p.budget <= 0 {
		p.budget = DefaultRetryBudget
	}
	if p.attemptTimeout <= 0 {
		p.attemptTimeout = DefaultAttemptTimeout
	}
	if p.base <= 0 {
		p.base = defaultRetryBase
	}
	return p
}

// call runs fn until it succeeds, fails with an error that is not
// transient, or the budget runs out: Options.RetryBudget, or while Lock
// waits what is left of its wait (at least one whole attempt). Each attempt
// gets at most Options.AttemptTimeout, so a stalled connection is
// abandoned. Waits between attempts back off exponentially from
// Options.RetryBase with full jitter (capped at 5s). The error is fn's
// last, unwrapped (callers classify it), or, when the budget ran out, a
// *RetryBudgetError naming the object and the attempts that wraps it.
func (g *bucket) call(ctx context.Context, op, key string, fn func(ctx context.Context) error) (attemptOutcome, error) {
	p := g.retry
	budget := p.budget
	if until, ok := objstore.LockWaitEnds(ctx); ok {
		budget = max(time.Until(until), p.attemptTimeout)
	}
	var out attemptOutcome
	deadline := time.Now().Add(budget)
	for {
		remaining := time.Until(deadline)
		actx, cancel := context.WithTimeout(ctx, min(p.attemptTimeout, max(remaining, time.Millisecond)))
		err := fn(actx)
		cancel()
		out.attempts++
		if err == nil {
			return out, nil
		}
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		if !isTransient(err) {
			return out, err
		}
		out.ambiguous = true
		if p.onRetry != nil {
			p.onRetry(op, err)
		}
		wait := fullJitter(p.base, out.attempts)
		if time.Until(deadline) <= wait {
			return out, &RetryBudgetError{Op: op, Where: g.url(key), Attempts: out.attempts, Budget: budget, Err: err}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return out, ctx.Err()
		case <-t.C:
		}
	}
}

// fullJitter is a random wait in [0, min(5s, base × 2^(n-1))].
func fullJitter(base time.Duration, n int) time.Duration {
	d := base << min(n-1, 20)
	if d <= 0 || d > retryMaxDelay {
		d = retryMaxDelay
	}
	return time.Duration(mrand.Int64N(int64(d) + 1))
}

// RetryBudgetError is returned when transient errors outlasted an
// operation's retry budget. It wraps the last error.
type RetryBudgetError struct {
	Op, Where string
	Attempts  int
	Budget    time.Duration
	Err       error
}

func (e *RetryBudgetError) Error() string {
	return fmt.Sprintf("%s %s: still failing after %d attempts in %s (the network or the GCS endpoint is unreliable; run again): %v",
		e.Op, e.Where, e.Attempts, e.Budget, e.Err)
}

func (e *RetryBudgetError) Unwrap() error { return e.Err }
