package statemgrtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
)

// LockTiming is what RunStale asks a factory to set.
type LockTiming struct {
	LockTimeout, StaleAfter, Heartbeat time.Duration
}

// TimedFactory is a Factory whose backends use the given lock timing.
type TimedFactory func(t *testing.T, timing LockTiming) statemgr.Backend

// RunStale checks the heartbeat and the breaking of abandoned locks, for
// backends that have them (the HTTP protocol has neither): a holder that
// keeps its heartbeat is never broken, however long others wait; a lock
// whose holder stopped beating is broken once older than StaleAfter, and
// the old holder's release then does not remove the new holder's lock.
func RunStale(t *testing.T, newBackend TimedFactory) {
	ctx := context.Background()
	const stale = 400 * time.Millisecond

	t.Run("a live holder is never broken", func(t *testing.T) {
		holder := newBackend(t, LockTiming{LockTimeout: time.Second, StaleAfter: stale, Heartbeat: stale / 8})
		waiter := newBackend(t, LockTiming{LockTimeout: 3 * stale, StaleAfter: stale, Heartbeat: stale / 8})
		l := mustLock(t, holder, NewLockInfo("apply"))
		defer mustUnlock(t, l)
		got, err := waiter.Lock(ctx, NewLockInfo("plan"))
		if err == nil {
			_ = got.Unlock(ctx)
			t.Fatal("a waiter broke the lock of a holder that kept its heartbeat")
		}
		var le *statemgr.LockedError
		if !errors.As(err, &le) || le.Holder.ID != l.Info().ID {
			t.Fatalf("waiter: %v; want a LockedError naming %s", err, l.Info().ID)
		}
	})

	t.Run("an abandoned lock is broken after StaleAfter", func(t *testing.T) {
		// A heartbeat of an hour: the holder looks dead once StaleAfter passes.
		dead := newBackend(t, LockTiming{LockTimeout: time.Second, StaleAfter: stale, Heartbeat: time.Hour})
		breaker := newBackend(t, LockTiming{LockTimeout: 10 * stale, StaleAfter: stale, Heartbeat: stale / 8})
		other := newBackend(t, LockTiming{LockTimeout: stale / 4, StaleAfter: stale, Heartbeat: stale / 8})
		old := mustLock(t, dead, NewLockInfo("apply"))
		start := time.Now()
		l := mustLock(t, breaker, NewLockInfo("apply"))
		if el := time.Since(start); el < stale/2 {
			t.Errorf("the lock was broken after %s, before it was %s old", el, stale)
		}
		if err := old.Unlock(ctx); err == nil {
			t.Error("the broken holder's Unlock reported success")
		}
		if h := wantLocked(t, other); h.ID != l.Info().ID {
			t.Errorf("after the broken holder released, the holder is %s, want the breaker %s", h.ID, l.Info().ID)
		}
		mustUnlock(t, l)
	})
}
