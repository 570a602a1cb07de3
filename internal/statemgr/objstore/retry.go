package objstore

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"time"
)

// Retry budgets: the defaults of a backend's RetryBudget and
// AttemptTimeout options (docs/state.md "S3 and the retry budgets" and "GCS").
const (
	DefaultRetryBudget    = 2 * time.Minute
	DefaultAttemptTimeout = 30 * time.Second
	defaultRetryBase      = 100 * time.Millisecond
	retryMaxDelay         = 5 * time.Second
)

// Retry is how a bucket retries its calls: within Budget (or, while Lock
// waits, what is left of the wait), each attempt cut off after
// AttemptTimeout, waits backing off from Base. Transient is the service's
// own judgement of which errors another attempt may not meet; Service
// ("S3", "GCS") names the endpoint in a *RetryBudgetError.
type Retry struct {
	Budget, AttemptTimeout, Base time.Duration
	OnRetry                      func(op string, err error)
	Transient                    func(error) bool
	Service                      string
}

// WithDefaults fills in the zero durations.
func (p Retry) WithDefaults() Retry {
	if p.Budget <= 0 {
		p.Budget = DefaultRetryBudget
	}
	if p.AttemptTimeout <= 0 {
		p.AttemptTimeout = DefaultAttemptTimeout
	}
	if p.Base <= 0 {
		p.Base = defaultRetryBase
	}
	return p
}

// Attempts says what a call did: how many attempts, and whether one failed
// in a way that may have landed (a lost answer).
type Attempts struct {
	N         int
	Ambiguous bool
}

// Call runs fn until it succeeds, fails with an error that is not
// transient, or the budget runs out: p.Budget, or while Lock waits what is
// left of its wait (at least one whole attempt). Each attempt gets at most
// p.AttemptTimeout, so a stalled connection is abandoned. Waits between
// attempts back off exponentially from p.Base with full jitter (capped at
// 5s). The error is fn's last, unwrapped (callers classify it), or, when
// the budget ran out, a *RetryBudgetError naming where (the object) and
// the attempts that wraps it.
func (p Retry) Call(ctx context.Context, op, where string, fn func(ctx context.Context) error) (Attempts, error) {
	budget := p.Budget
	if until, ok := LockWaitEnds(ctx); ok {
		budget = max(time.Until(until), p.AttemptTimeout)
	}
	var out Attempts
	deadline := time.Now().Add(budget)
	for {
		remaining := time.Until(deadline)
		actx, cancel := context.WithTimeout(ctx, min(p.AttemptTimeout, max(remaining, time.Millisecond)))
		err := fn(actx)
		cancel()
		out.N++
		if err == nil {
			return out, nil
		}
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		if !p.Transient(err) {
			return out, err
		}
		out.Ambiguous = true
		if p.OnRetry != nil {
			p.OnRetry(op, err)
		}
		wait := fullJitter(p.Base, out.N)
		if time.Until(deadline) <= wait {
			return out, &RetryBudgetError{Op: op, Where: where, Service: p.Service, Attempts: out.N, Budget: budget, Err: err}
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
	Op, Where, Service string
	Attempts           int
	Budget             time.Duration
	Err                error
}

func (e *RetryBudgetError) Error() string {
	return fmt.Sprintf("%s %s: still failing after %d attempts in %s (the network or the %s endpoint is unreliable; run again): %v",
		e.Op, e.Where, e.Attempts, e.Budget, e.Service, e.Err)
}

func (e *RetryBudgetError) Unwrap() error { return e.Err }
