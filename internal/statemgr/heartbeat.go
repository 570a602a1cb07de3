package statemgr

import (
	"context"
	"sync"
	"time"
)

// Heartbeat is the loop every backend's held lock runs in a goroutine of
// its own: it calls beat every interval until Stop, or until beat fails
// with an error for which lost reports true (the lock was taken from us),
// which Lost then returns. Other errors (a full disk, the network) are
// retried at the next tick; if they last, the lock goes stale and others
// may break it. beat's context ends at Stop, so a slow refresh does not
// delay Unlock.
type Heartbeat struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the goroutine has returned

	mu   sync.Mutex
	lost error
}

// StartHeartbeat starts the loop.
func StartHeartbeat(interval time.Duration, beat func(ctx context.Context) error, lost func(error) bool) *Heartbeat {
	ctx, cancel := context.WithCancel(context.Background())
	h := &Heartbeat{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(h.done) // after lost is set: Stop reads it once done is closed
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := beat(ctx); err != nil && lost(err) {
					h.mu.Lock()
					h.lost = err
					h.mu.Unlock()
					return
				}
			}
		}
	}()
	return h
}

// Lost returns the error that ended the loop because the lock was taken
// from us, or nil.
func (h *Heartbeat) Lost() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lost
}

// Done is closed when the loop has ended (after Stop, or after the lock
// was lost).
func (h *Heartbeat) Done() <-chan struct{} { return h.done }

// Stop ends the loop, waits for its goroutine and returns Lost. It is safe
// to call more than once.
func (h *Heartbeat) Stop() error {
	h.cancel()
	<-h.done
	return h.Lost()
}
