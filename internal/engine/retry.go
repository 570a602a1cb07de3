package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider"
)

// retry calls fn until it succeeds, fails permanently, or attempts run out.
// Only transient provider errors are retried, waiting base × 2^n (capped at
// max), with jitter drawing the wait from its upper half, and never less
// than the error's RetryAfter; ev, when non-nil, reports each retry.
func (e *Engine) retry(ctx context.Context, attempts int, base, max time.Duration, jitter bool, ev *progress.Event, fn func(context.Context) error) error {
	var err error
	for n := 0; n < attempts; n++ {
		if err = fn(ctx); err == nil || !provider.IsTransient(err) {
			return err
		}
		if n == attempts-1 {
			break
		}
		wait := base << n
		if wait > max || wait <= 0 {
			wait = max
		}
		if jitter {
			wait = wait/2 + time.Duration(rand.Int64N(int64(wait/2)+1))
		}
		var t *provider.TransientError
		if errors.As(err, &t) && t.RetryAfter > wait {
			wait = t.RetryAfter // the server's hint is a floor, never jittered below
		}
		if ev != nil {
			r := *ev
			r.Kind, r.Err, r.Attempt, r.Time = progress.Retrying, err, n+1, e.opts.Now()
			e.opts.Hook.Event(r)
		}
		if serr := e.opts.Sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%w (gave up waiting to retry: %v)", err, serr)
		}
	}
	return fmt.Errorf("after %d attempts: %w", attempts, err)
}

// call retries a provider call with the general policy.
func (e *Engine) call(ctx context.Context, ev *progress.Event, fn func(context.Context) error) error {
	return e.retry(ctx, e.opts.RetryAttempts, e.opts.RetryBase, e.opts.RetryMax, true, ev, fn)
}

func isNotFound(err error) bool { return errors.Is(err, provider.ErrNotFound) }
