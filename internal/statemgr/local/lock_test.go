package local

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

func writeLockFile(t *testing.T, dir string, info statemgr.LockInfo) {
	t.Helper()
	body, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".kyku.lock"), body, 0o644); err != nil {
		t.Fatal(err)
	}
}

func lockOnDisk(t *testing.T, dir string) statemgr.LockInfo {
	t.Helper()
	var info statemgr.LockInfo
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, ".kyku.lock")), &info); err != nil {
		t.Fatalf("lock file: %v", err)
	}
	return info
}

func TestLockRecordsWhoHoldsIt(t *testing.T) {
	ctx := t.Context()
	clock := newFakeClock()
	dir := t.TempDir()
	b := New(dir, "prod", Options{Now: clock.Now, Hostname: "runner-7", PID: 4242})
	l, err := b.Lock(ctx, statemgr.LockInfo{Operation: "apply", Who: "alice@runner-7", RunURL: "https://ci/run/1", Actor: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock(ctx)
	got := lockOnDisk(t, dir)
	want := statemgr.LockInfo{
		ID: l.Info().ID, Operation: "apply", Who: "alice@runner-7", Actor: "alice", RunURL: "https://ci/run/1",
		Host: "runner-7", PID: 4242, Created: clock.Now(), Heartbeat: clock.Now(), Path: filepath.Join(dir, ".kyku.lock"),
	}
	if got != want {
		t.Errorf("lock file body:\n got %+v\nwant %+v", got, want)
	}
	if len(got.ID) != 16 {
		t.Errorf("token %q is not 16 hex digits", got.ID)
	}
}

func TestHeartbeatIsFasterThanStaleAfter(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		want time.Duration
	}{
		{Options{}, 60 * time.Second},
		{Options{StaleAfter: 2 * time.Second}, 2 * time.Second / 3},
		{Options{StaleAfter: time.Minute, Heartbeat: 5 * time.Second}, 5 * time.Second},
	} {
		if got := New(".kyku", "", tc.opts).opts.Heartbeat; got != tc.want {
			t.Errorf("New(%+v) heartbeat = %s, want %s", tc.opts, got, tc.want)
		}
	}
}

func TestStaleLocks(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		name      string
		write     func(t *testing.T, dir string, now time.Time)
		wantBreak bool
		wantMsg   string
	}{
		{"old heartbeat is broken", func(t *testing.T, dir string, now time.Time) {
			writeLockFile(t, dir, statemgr.LockInfo{ID: "dead", Operation: "apply", Created: now.Add(-time.Hour), Heartbeat: now.Add(-6 * time.Minute)})
		}, true, ""},
		{"old creation and no heartbeat is broken", func(t *testing.T, dir string, now time.Time) {
			writeLockFile(t, dir, statemgr.LockInfo{ID: "dead", Operation: "apply", Created: now.Add(-6 * time.Minute)})
		}, true, ""},
		{"old creation but recent heartbeat is kept", func(t *testing.T, dir string, now time.Time) {
			writeLockFile(t, dir, statemgr.LockInfo{ID: "alive", Operation: "apply", PID: 77, Created: now.Add(-time.Hour), Heartbeat: now.Add(-4 * time.Minute)})
		}, false, `operation "apply", token alive, pid 77`},
		{"corrupt and old by mtime is broken", func(t *testing.T, dir string, now time.Time) {
			p := filepath.Join(dir, ".kyku.lock")
			if err := os.WriteFile(p, []byte("{garbage"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, now.Add(-6*time.Minute), now.Add(-6*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}, true, ""},
		{"empty and recent by mtime is kept", func(t *testing.T, dir string, now time.Time) {
			p := filepath.Join(dir, ".kyku.lock")
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, now.Add(-time.Minute), now.Add(-time.Minute)); err != nil {
				t.Fatal(err)
			}
		}, false, "is not a valid lock"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			dir := t.TempDir()
			tc.write(t, dir, clock.Now())
			opts := fastOptions()
			opts.Now = clock.Now
			opts.LockTimeout = 50 * time.Millisecond
			l, err := New(dir, "prod", opts).Lock(ctx, statemgrtest.NewLockInfo("plan"))
			if !tc.wantBreak {
				var le *statemgr.LockedError
				if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.wantMsg) {
					t.Fatalf("Lock error = %v; want a *LockedError saying %q", err, tc.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatalf("stale lock not broken: %v", err)
			}
			defer l.Unlock(ctx)
			if got := lockOnDisk(t, dir); got.ID != l.Info().ID || got.Operation != "plan" {
				t.Errorf("lock on disk = %+v; want ours", got)
			}
			if m, _ := filepath.Glob(filepath.Join(dir, ".kyku.lock.*")); len(m) != 0 {
				t.Errorf("files left by breaking the lock: %v", m)
			}
		})
	}
}

// A live holder whose heartbeat runs is never broken, even when StaleAfter
// is far shorter than the wait; once its heartbeat stops, it is, at the
// first look past StaleAfter. The clock is synctest's.
func TestHeartbeatKeepsTheLockAlive(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		dir := t.TempDir()
		holder := New(dir, "prod", Options{Heartbeat: 10 * time.Millisecond})
		waiter := New(dir, "prod", Options{StaleAfter: 250 * time.Millisecond, LockTimeout: 800 * time.Millisecond, PollInterval: 5 * time.Millisecond})

		l, err := holder.Lock(ctx, statemgrtest.NewLockInfo("apply"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = waiter.Lock(ctx, statemgrtest.NewLockInfo("plan"))
		var le *statemgr.LockedError
		if !errors.As(err, &le) || le.Holder.ID != l.Info().ID {
			t.Fatalf("waiter got %v; want *LockedError naming the live holder", err)
		}
		if info := l.Info(); !info.Heartbeat.After(info.Created.Add(500 * time.Millisecond)) {
			t.Errorf("heartbeat %s did not advance from %s", info.Heartbeat, info.Created)
		}
		if onDisk := lockOnDisk(t, dir); onDisk.Heartbeat.Before(onDisk.Created.Add(500 * time.Millisecond)) {
			t.Errorf("heartbeat on disk %s was not refreshed since %s", onDisk.Heartbeat, onDisk.Created)
		}
		if err := l.Unlock(ctx); err != nil {
			t.Fatal(err)
		}

		// A hung holder (no heartbeat within StaleAfter) is broken at the first
		// poll past StaleAfter.
		hung := New(dir, "prod", Options{Heartbeat: time.Hour})
		lh, err := hung.Lock(ctx, statemgrtest.NewLockInfo("apply"))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		l2, err := waiter.Lock(ctx, statemgrtest.NewLockInfo("plan"))
		if err != nil {
			t.Fatalf("lock without a heartbeat was not broken: %v", err)
		}
		defer l2.Unlock(ctx)
		if el := time.Since(start); el <= waiter.opts.StaleAfter || el > waiter.opts.StaleAfter+waiter.opts.PollInterval {
			t.Errorf("breaking took %s, want the first poll past StaleAfter (250ms, polling every 5ms)", el)
		}
		// The hung holder's release is an error and leaves the new lock alone.
		if err := lh.Unlock(ctx); !errors.Is(err, errLockLost) {
			t.Errorf("Unlock of a broken lock = %v; want errLockLost", err)
		}
		if got := lockOnDisk(t, dir); got.ID != l2.Info().ID {
			t.Errorf("lock on disk = %s; want the new holder %s", got.ID, l2.Info().ID)
		}
	})
}

// A holder whose lock was taken (force-unlock, then a new lock) stops its
// heartbeat without touching the new lock, and its Unlock says so.
func TestLostLockIsNotOverwritten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		dir := t.TempDir()
		a := New(dir, "prod", Options{Heartbeat: 5 * time.Millisecond})
		b := New(dir, "prod", fastOptions())
		la, err := a.Lock(ctx, statemgrtest.NewLockInfo("apply"))
		if err != nil {
			t.Fatal(err)
		}
		if err := b.ForceUnlock(ctx, la.Info().ID); err != nil {
			t.Fatal(err)
		}
		lb, err := b.Lock(ctx, statemgrtest.NewLockInfo("plan"))
		if err != nil {
			t.Fatal(err)
		}
		defer lb.Unlock(ctx)
		h := la.(*heldLock)
		start := time.Now()
		select {
		case <-h.hb.Done():
		case <-time.After(time.Minute):
			t.Fatal("heartbeat of a lost lock kept running")
		}
		if el := time.Since(start); el != 5*time.Millisecond {
			t.Errorf("the heartbeat noticed the loss after %s, want at its next beat (5ms)", el)
		}
		if got := lockOnDisk(t, dir); got.ID != lb.Info().ID || got.Operation != "plan" {
			t.Errorf("lock on disk = %+v; want the new holder's", got)
		}
		if err := la.Unlock(ctx); !errors.Is(err, errLockLost) {
			t.Errorf("Unlock of a lost lock = %v; want errLockLost", err)
		}
		if got := lockOnDisk(t, dir); got.ID != lb.Info().ID {
			t.Errorf("old holder's Unlock removed the new lock")
		}
	})
}

// Unlock stops the heartbeat at once, after it beat (twice, on synctest's
// clock), and a second Unlock is harmless.
func TestUnlockStopsTheHeartbeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		dir := t.TempDir()
		b := New(dir, "prod", Options{Heartbeat: time.Millisecond})
		for range 20 {
			l, err := b.Lock(ctx, statemgrtest.NewLockInfo("apply"))
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Millisecond)
			if err := l.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
			select {
			case <-l.(*heldLock).hb.Done():
			default:
				t.Fatal("heartbeat goroutine still running after Unlock")
			}
			if err := l.Unlock(ctx); err != nil {
				t.Errorf("second Unlock: %v", err)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, ".kyku.lock")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("lock file after Unlock: %v", err)
		}
		// A goroutine left running fails the test: synctest.Test reports
		// the bubble's goroutines that outlive it.
	})
}

// Many processes (Backend values) breaking one stale lock at once: the lock
// stays exclusive, and no holder loses its fresh lock to a late breaker.
func TestRacingBreakersKeepTheLockExclusive(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		dir := t.TempDir()
		var inside atomic.Int32
		var overlap atomic.Bool
		for round := range 15 {
			writeLockFile(t, dir, statemgr.LockInfo{ID: "dead", Created: time.Now().Add(-time.Hour), Heartbeat: time.Now().Add(-time.Hour)})
			ready := make(chan struct{})
			var wg sync.WaitGroup
			for i := range 6 {
				b := New(dir, "prod", Options{LockTimeout: 10 * time.Second, PollInterval: time.Millisecond})
				wg.Go(func() {
					<-ready
					l, err := b.Lock(ctx, statemgrtest.NewLockInfo("apply"))
					if err != nil {
						t.Errorf("round %d worker %d: %v", round, i, err)
						return
					}
					if inside.Add(1) > 1 {
						overlap.Store(true)
					}
					time.Sleep(time.Millisecond)
					inside.Add(-1)
					if err := l.Unlock(ctx); err != nil {
						t.Errorf("round %d worker %d lost its lock: %v", round, i, err)
					}
				})
			}
			close(ready)
			wg.Wait()
		}
		if overlap.Load() {
			t.Error("two holders at once")
		}
	})
}

func TestForceUnlockErrors(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	b := New(dir, "prod", fastOptions())
	if err := b.ForceUnlock(ctx, "abc"); err == nil || !strings.Contains(err.Error(), "no lock is held") {
		t.Errorf("ForceUnlock without a lock = %v; want 'no lock is held'", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".kyku.lock"), []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.ForceUnlock(ctx, "abc"); err == nil || !strings.Contains(err.Error(), "remove it by hand") {
		t.Errorf("ForceUnlock of a corrupt lock = %v; want advice to remove it by hand", err)
	}
	writeLockFile(t, dir, statemgr.LockInfo{ID: "c0ffee", Operation: "apply", Who: "bob@ci"})
	err := b.ForceUnlock(ctx, "abc")
	if err == nil || !strings.Contains(err.Error(), "held by bob@ci") || strings.Contains(err.Error(), "c0ffee") {
		t.Errorf("ForceUnlock with the wrong token = %v; want it to name bob's lock, not its token", err)
	}
}

func TestNegativeTimeoutDoesNotWait(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	holder := New(dir, "prod", fastOptions())
	l, err := holder.Lock(ctx, statemgrtest.NewLockInfo("apply"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock(ctx)
	start := time.Now()
	_, err = New(dir, "prod", Options{LockTimeout: -1}).Lock(ctx, statemgrtest.NewLockInfo("plan"))
	var le *statemgr.LockedError
	if !errors.As(err, &le) {
		t.Fatalf("Lock = %v; want *LockedError", err)
	}
	if el := time.Since(start); el > 200*time.Millisecond {
		t.Errorf("Lock with a negative timeout waited %s", el)
	}
}
