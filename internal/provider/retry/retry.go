package retry

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/kyku/action/internal/provider"
)

// Policy bounds the attempts of one request.
type Policy struct {
	MaxAttempts int           // attempts per request, including the first
	Backoff     time.Duration // first delay between attempts, doubled after each
	MaxBackoff  time.Duration // cap on one delay
	// Sleep waits between attempts (nil: Sleep); tests inject a clock.
	Sleep func(ctx context.Context, d time.Duration) error
	// Retries, when set, counts every retry.
	Retries *atomic.Int64
}

// Verdict is what an adapter makes of an attempt that failed.
type Verdict struct {
	Retry    bool          // the same request may succeed if sent again
	NotFound bool          // final: the object does not exist (the error wraps provider.ErrNotFound)
	Hint     time.Duration // the server's hint how long until an attempt can succeed
	Paced    bool          // the adapter holds the next attempt back itself: no backoff sleep
	// Final, when set on a verdict that is not retried, is returned as is:
	// the adapter's own account of the failure.
	Final error
}

// Do runs attempt until it succeeds, fails for good, or MaxAttempts are
// spent; op names the request in every error. A failure whose Verdict
// says Retry is tried again after the backoff delay (or at once when
// Paced), and after the last attempt returned as a
// *provider.TransientError with the Verdict's Hint as RetryAfter. A
// failure that is not retried is returned wrapped with op (and with
// provider.ErrNotFound when NotFound). Cancelling ctx ends Do with ctx's
// error.
func (p Policy) Do(ctx context.Context, op string, attempt func(context.Context) (Verdict, error)) error {
	sleep := p.Sleep
	if sleep == nil {
		sleep = Sleep
	}
	delay := p.Backoff
	for n := 1; ; n++ {
		v, err := attempt(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", op, ctx.Err())
		}
		switch {
		case v.Retry:
		case v.Final != nil:
			return v.Final
		case v.NotFound:
			return fmt.Errorf("%s: %w: %w", op, provider.ErrNotFound, err)
		default:
			return fmt.Errorf("%s: %w", op, err)
		}
		if n >= p.MaxAttempts {
			return &provider.TransientError{Err: fmt.Errorf("%s: gave up after %d attempts: %w", op, n, err), RetryAfter: v.Hint}
		}
		if p.Retries != nil {
			p.Retries.Add(1)
		}
		if v.Paced {
			continue
		}
		if err := sleep(ctx, delay); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		delay = min(delay*2, p.MaxBackoff)
	}
}

// Poll bounds a wait for the cloud to reach some state.
type Poll struct {
	Interval time.Duration // between checks (the first interval, with MaxInterval)
	// MaxInterval, when above Interval, makes the interval double after
	// each check up to it (exponential backoff); 0 keeps it constant.
	MaxInterval time.Duration
	Max         int // checks at most
	// Sleep waits between checks (nil: Sleep); tests inject a clock.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Until calls check every Interval (doubling up to MaxInterval when set)
// until it reports done, at most Max times; what names the wait in errors. An error from check ends the wait;
// still not done after Max checks is transient (the engine may retry the
// step).
func (w Poll) Until(ctx context.Context, what string, check func(context.Context) (bool, error)) error {
	sleep := w.Sleep
	if sleep == nil {
		sleep = Sleep
	}
	interval := w.Interval
	for i := 0; i < w.Max; i++ {
		done, err := check(ctx)
		if err != nil {
			return fmt.Errorf("wait for %s: %w", what, err)
		}
		if done {
			return nil
		}
		if err := sleep(ctx, interval); err != nil {
			return fmt.Errorf("wait for %s: %w", what, err)
		}
		if w.MaxInterval > interval {
			interval = min(interval*2, w.MaxInterval)
		}
	}
	return provider.Transient(fmt.Errorf("wait for %s: still not done after %d polls", what, w.Max))
}

// Sleep waits for d, or until ctx is done (then it returns ctx's error).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
