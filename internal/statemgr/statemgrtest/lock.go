package statemgrtest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
)

func testLock(t *testing.T, newBackend Factory) {
	ctx := context.Background()

	t.Run("exclusive; the loser is told who holds it", func(t *testing.T) {
		a, b := newBackend(t), newBackend(t)
		want := NewLockInfo("apply")
		la := mustLock(t, a, want)
		info := la.Info()
		if info.ID == "" || info.Operation != "apply" || info.Created.IsZero() {
			t.Errorf("held lock info = %+v; want a token, the operation and a creation time", info)
		}
		holder := wantLocked(t, b)
		if holder.ID != info.ID || holder.Operation != want.Operation || holder.Who != want.Who || holder.RunURL != want.RunURL {
			t.Errorf("LockedError holder = %+v; want token %s, operation %q, who %q, run %q", holder, info.ID, want.Operation, want.Who, want.RunURL)
		}
		mustUnlock(t, la)
		mustUnlock(t, mustLock(t, b, NewLockInfo("plan")))
	})

	t.Run("a waiting lock gets in when the holder releases", func(t *testing.T) {
		a, b := newBackend(t), newBackend(t)
		la := mustLock(t, a, NewLockInfo("apply"))
		go func() {
			time.Sleep(LockTimeout / 6)
			_ = la.Unlock(context.WithoutCancel(ctx))
		}()
		mustUnlock(t, mustLock(t, b, NewLockInfo("plan")))
	})

	t.Run("a waiting lock tells its hook once whom it waits for", func(t *testing.T) {
		a, b := newBackend(t), newBackend(t)
		var mu sync.Mutex
		var told []statemgr.LockInfo
		var timeouts []time.Duration
		wctx := statemgr.WithLockWaiting(ctx, func(h statemgr.LockInfo, d time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			told, timeouts = append(told, h), append(timeouts, d)
		})
		// A free lock is taken without a word.
		mustUnlock(t, mustLockCtx(t, wctx, b, NewLockInfo("plan")))
		la := mustLock(t, a, NewLockInfo("apply"))
		defer mustUnlock(t, la)
		if l, err := b.Lock(wctx, NewLockInfo("plan")); err == nil {
			_ = l.Unlock(ctx)
			t.Fatal("Lock succeeded while another holder had it")
		}
		mu.Lock()
		defer mu.Unlock()
		if len(told) != 1 {
			t.Fatalf("the hook was told %d times (%+v), want once, when the wait started", len(told), told)
		}
		held := la.Info()
		if h := told[0]; h.ID != held.ID || h.Who != held.Who || h.Operation != "apply" || h.Created.Sub(held.Created).Abs() > time.Second {
			t.Errorf("the hook was told the holder is %+v, want %+v", h, held)
		}
		if timeouts[0] != LockTimeout {
			t.Errorf("the hook was told the wait lasts %s, want the lock timeout %s", timeouts[0], LockTimeout)
		}
	})

	t.Run("cancelling the context aborts the wait", func(t *testing.T) {
		a, b := newBackend(t), newBackend(t)
		la := mustLock(t, a, NewLockInfo("apply"))
		defer mustUnlock(t, la)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		l, err := b.Lock(cctx, NewLockInfo("plan"))
		if err == nil {
			_ = l.Unlock(ctx)
			t.Fatal("Lock with a cancelled context succeeded while the lock was held")
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Lock error = %v; want one wrapping context.Canceled", err)
		}
	})

	t.Run("force-unlock needs the right token and does not tell it", func(t *testing.T) {
		a, b, c := newBackend(t), newBackend(t), newBackend(t)
		la := mustLock(t, a, NewLockInfo("apply"))
		id := la.Info().ID
		err := b.ForceUnlock(ctx, statemgr.NewLockID())
		if err == nil {
			t.Fatal("ForceUnlock with a wrong token succeeded")
		}
		// A guess is refused without being told the right token.
		if strings.Contains(err.Error(), id) || !errors.Is(err, statemgr.ErrWrongToken) {
			t.Errorf("ForceUnlock error %q reveals the holder's token %s, or does not wrap ErrWrongToken", err, id)
		}
		if holder := wantLocked(t, c); holder.ID != id {
			t.Errorf("after a refused force-unlock the holder is %s, want %s", holder.ID, id)
		}
		if err := b.ForceUnlock(ctx, id); err != nil {
			t.Fatalf("ForceUnlock(%s): %v", id, err)
		}
		lb := mustLock(t, b, NewLockInfo("plan"))
		// The old holder's release must not remove the new holder's lock.
		_ = la.Unlock(ctx)
		if holder := wantLocked(t, c); holder.ID != lb.Info().ID {
			t.Errorf("after the old holder released, the holder is %s, want the new holder %s", holder.ID, lb.Info().ID)
		}
		mustUnlock(t, lb)
		mustUnlock(t, mustLock(t, c, NewLockInfo("refresh")))
	})
}

func mustLock(t *testing.T, b statemgr.Backend, info statemgr.LockInfo) statemgr.Lock {
	t.Helper()
	return mustLockCtx(t, context.Background(), b, info)
}

func mustLockCtx(t *testing.T, ctx context.Context, b statemgr.Backend, info statemgr.LockInfo) statemgr.Lock {
	t.Helper()
	l, err := b.Lock(ctx, info)
	if err != nil {
		t.Fatalf("Lock(%s): %v", info.Operation, err)
	}
	return l
}

func mustUnlock(t *testing.T, l statemgr.Lock) {
	t.Helper()
	if err := l.Unlock(context.Background()); err != nil {
		t.Errorf("Unlock: %v", err)
	}
}

// wantLocked checks that Lock on b times out with a *LockedError, within a
// bound that shows the factory set a short LockTimeout, and returns the
// holder it names.
func wantLocked(t *testing.T, b statemgr.Backend) statemgr.LockInfo {
	t.Helper()
	start := time.Now()
	l, err := b.Lock(context.Background(), NewLockInfo("plan"))
	if err == nil {
		_ = l.Unlock(context.Background())
		t.Fatal("Lock succeeded while another holder had it")
	}
	var le *statemgr.LockedError
	if !errors.As(err, &le) {
		t.Fatalf("Lock error = %v (%T); want a *statemgr.LockedError", err, err)
	}
	if el := time.Since(start); el > 20*LockTimeout {
		t.Errorf("Lock gave up after %s; the factory must set LockTimeout %s", el, LockTimeout)
	}
	return le.Holder
}
