package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kyku/action/internal/provider"
)

// A server's Retry-After is a floor: jitter never waits less.
func TestRetryHonoursRetryAfter(t *testing.T) {
	var waits []time.Duration
	e := New(nil, nil, Options{Sleep: func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}})
	calls := 0
	err := e.retry(t.Context(), 4, time.Millisecond, time.Second, true, nil, func(context.Context) error {
		calls++
		if calls < 4 {
			return &provider.TransientError{Err: errors.New("slow down"), RetryAfter: 3 * time.Second}
		}
		return nil
	})
	if err != nil || calls != 4 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
	for _, w := range waits {
		if w < 3*time.Second {
			t.Errorf("waited %v, less than the Retry-After of 3s", w)
		}
	}
}
