package retry_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/retry"
)

var errBoom = errors.New("boom")

// naps records the waits of a Policy or Poll instead of sleeping.
type naps []time.Duration

func (n *naps) sleep(ctx context.Context, d time.Duration) error {
	*n = append(*n, d)
	return ctx.Err()
}

func TestDo(t *testing.T) {
	retryable := retry.Verdict{Retry: true}
	for _, tc := range []struct {
		name     string
		verdicts []retry.Verdict // one per failing attempt; the next attempt succeeds
		want     string          // error text, "" for success
		attempts int
		naps     []time.Duration
		retries  int64
		check    func(t *testing.T, err error)
	}{
		{
			name: "retried until it succeeds", verdicts: []retry.Verdict{retryable, retryable},
			attempts: 3, naps: []time.Duration{time.Second, 2 * time.Second}, retries: 2,
		},
		{
			name: "backoff doubles up to the cap", verdicts: []retry.Verdict{retryable, retryable, retryable},
			attempts: 4, naps: []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}, retries: 3,
		},
		{
			name:     "gives up after MaxAttempts as transient with the server's hint",
			verdicts: []retry.Verdict{retryable, retryable, retryable, retryable, {Retry: true, Hint: 7 * time.Second}, retryable},
			want:     "transient: create thing: gave up after 5 attempts: boom", attempts: 5,
			naps: []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second}, retries: 4,
			check: func(t *testing.T, err error) {
				var te *provider.TransientError
				if !errors.As(err, &te) || te.RetryAfter != 7*time.Second || !errors.Is(err, errBoom) {
					t.Errorf("err = %#v; want a TransientError with RetryAfter 7s wrapping the last error", err)
				}
			},
		},
		{
			name: "a final failure is returned at once, wrapped with op", verdicts: []retry.Verdict{{}},
			want: "create thing: boom", attempts: 1,
			check: func(t *testing.T, err error) {
				if provider.IsTransient(err) || !errors.Is(err, errBoom) || errors.Is(err, provider.ErrNotFound) {
					t.Errorf("err = %v; want the attempt's error, permanent", err)
				}
			},
		},
		{
			name: "not found wraps provider.ErrNotFound", verdicts: []retry.Verdict{retryable, {NotFound: true}},
			want: "create thing: not found: boom", attempts: 2, naps: []time.Duration{time.Second}, retries: 1,
			check: func(t *testing.T, err error) {
				if !errors.Is(err, provider.ErrNotFound) || !errors.Is(err, errBoom) {
					t.Errorf("err = %v; want ErrNotFound and the attempt's error", err)
				}
			},
		},
		{
			name: "a final account is returned as is", verdicts: []retry.Verdict{{Final: provider.Transient(errors.New("no answer"))}},
			want: "transient: no answer", attempts: 1,
		},
		{
			name: "a paced retry does not sleep or grow the backoff", verdicts: []retry.Verdict{{Retry: true, Paced: true}, {Retry: true, Paced: true}, retryable},
			attempts: 4, naps: []time.Duration{time.Second}, retries: 3,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var slept naps
			var retries atomic.Int64
			p := retry.Policy{MaxAttempts: 5, Backoff: time.Second, MaxBackoff: 3 * time.Second, Sleep: slept.sleep, Retries: &retries}
			attempts := 0
			err := p.Do(t.Context(), "create thing", func(context.Context) (retry.Verdict, error) {
				attempts++
				if attempts > len(tc.verdicts) {
					return retry.Verdict{}, nil
				}
				return tc.verdicts[attempts-1], errBoom
			})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("err = %q, want %q", got, tc.want)
			}
			if attempts != tc.attempts || retries.Load() != tc.retries {
				t.Errorf("%d attempts, %d retries counted; want %d and %d", attempts, retries.Load(), tc.attempts, tc.retries)
			}
			if d := cmp.Diff(tc.naps, []time.Duration(slept)); d != "" {
				t.Errorf("waits (-want +got):\n%s", d)
			}
			if tc.check != nil {
				tc.check(t, err)
			}
		})
	}
}

// A cancelled context ends Do with the context's error, whatever the
// verdict, and no further attempt is made.
func TestDoCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	attempts := 0
	err := retry.Policy{MaxAttempts: 5, Backoff: time.Hour, MaxBackoff: time.Hour}.Do(ctx, "get thing", func(context.Context) (retry.Verdict, error) {
		attempts++
		cancel()
		return retry.Verdict{Retry: true}, errBoom
	})
	if !errors.Is(err, context.Canceled) || attempts != 1 || err.Error() != "get thing: context canceled" {
		t.Errorf("err = %v after %d attempts; want get thing: context canceled after 1", err, attempts)
	}
}

func TestPollUntil(t *testing.T) {
	for _, tc := range []struct {
		name   string
		checks []bool // check results; an error after them
		want   string
		naps   int
	}{
		{"done on the third check", []bool{false, false, true}, "", 2},
		{"a check's error ends the wait", []bool{false}, "wait for server 1: boom", 1},
		{"still not done after Max checks is transient", []bool{false, false, false, false}, "transient: wait for server 1: still not done after 4 polls", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var slept naps
			n := 0
			err := retry.Poll{Interval: time.Second, Max: 4, Sleep: slept.sleep}.Until(t.Context(), "server 1", func(context.Context) (bool, error) {
				n++
				if n > len(tc.checks) {
					return false, errBoom
				}
				return tc.checks[n-1], nil
			})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want || len(slept) != tc.naps {
				t.Errorf("err = %q after %d waits; want %q after %d", got, len(slept), tc.want, tc.naps)
			}
		})
	}
}

// With MaxInterval the waits double up to it: fewer requests for a long
// wait.
func TestPollBacksOff(t *testing.T) {
	var slept naps
	n := 0
	err := retry.Poll{Interval: time.Second, MaxInterval: 5 * time.Second, Max: 10, Sleep: slept.sleep}.Until(t.Context(), "server 1", func(context.Context) (bool, error) {
		n++
		return n == 6, nil
	})
	want := naps{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	if err != nil || !cmp.Equal(slept, want) {
		t.Errorf("err = %v, waits %v; want %v", err, slept, want)
	}
}

// Sleep waits out its duration, or until its context ends, on synctest's
// clock: an hour is an hour, a cancelled context ends it at once, one
// cancelled after ten minutes at ten minutes.
func TestSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		took := func(ctx context.Context, d time.Duration) (time.Duration, error) {
			start := time.Now()
			err := retry.Sleep(ctx, d)
			return time.Since(start), err
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if el, err := took(ctx, time.Hour); !errors.Is(err, context.Canceled) || el != 0 {
			t.Errorf("Sleep(1h) on a cancelled context = %v after %v, want context.Canceled at once", err, el)
		}
		if el, err := took(t.Context(), time.Hour); err != nil || el != time.Hour {
			t.Errorf("Sleep(1h) = %v after %v, want nil after 1h", err, el)
		}
		if el, err := took(ctx, 0); !errors.Is(err, context.Canceled) || el != 0 {
			t.Errorf("Sleep(0) on a cancelled context = %v after %v, want its error at once", err, el)
		}
		ctx, cancel = context.WithTimeout(t.Context(), 10*time.Minute)
		defer cancel()
		if el, err := took(ctx, time.Hour); !errors.Is(err, context.DeadlineExceeded) || el != 10*time.Minute {
			t.Errorf("Sleep(1h) on a context ending after 10m = %v after %v, want its error after 10m", err, el)
		}
	})
}
