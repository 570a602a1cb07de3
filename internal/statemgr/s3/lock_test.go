package s3_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
	s3b "github.com/kyku/action/internal/statemgr/s3"
)

func lockInfo(who string) statemgr.LockInfo {
	return statemgr.LockInfo{Operation: "apply", Who: who, Actor: "octocat", RunURL: "https://github.com/acme/infra/actions/runs/" + who}
}

// Eight backends (as eight processes) race for the lock at once, round
// after round: exactly one wins each round, the others are told it is held.
func TestLockOneWinnerPerRound(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bucket := newBucket(t)
	const racers, rounds = 8, 8
	bs := make([]*s3b.Backend, racers)
	for i := range bs {
		bs[i] = newBackend(t, s3b.Config{Bucket: bucket, Prefix: "race"}, "prod", s3b.Options{LockTimeout: -1})
	}
	for round := range rounds {
		var wg sync.WaitGroup
		start := make(chan struct{})
		locks := make([]statemgr.Lock, racers)
		errs := make([]error, racers)
		for i, b := range bs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				locks[i], errs[i] = b.Lock(ctx, lockInfo("racer"))
			}()
		}
		close(start)
		wg.Wait()
		var winners []int
		for i := range bs {
			var le *statemgr.LockedError
			switch {
			case errs[i] == nil:
				winners = append(winners, i)
			case !errors.As(errs[i], &le):
				t.Errorf("round %d racer %d: error %v is not a *LockedError", round, i, errs[i])
			}
		}
		if len(winners) != 1 {
			t.Fatalf("round %d: %d winners %v, want exactly 1", round, len(winners), winners)
		}
		if err := locks[winners[0]].Unlock(ctx); err != nil {
			t.Fatalf("round %d: Unlock: %v", round, err)
		}
	}
}

// Eight backends take turns through the lock many times: the critical
// sections never overlap and every one of them gets in.
func TestLockCriticalSectionsNeverOverlap(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bucket := newBucket(t)
	const workers, turns = 8, 4
	var inside, maxInside, done atomic.Int32
	var wg sync.WaitGroup
	for w := range workers {
		b := newBackend(t, s3b.Config{Bucket: bucket}, "", s3b.Options{LockTimeout: 20 * time.Second, PollInterval: 5 * time.Millisecond})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range turns {
				l, err := b.Lock(ctx, lockInfo("worker"))
				if err != nil {
					t.Errorf("worker %d: Lock: %v", w, err)
					return
				}
				n := inside.Add(1)
				for m := maxInside.Load(); n > m && !maxInside.CompareAndSwap(m, n); m = maxInside.Load() {
				}
				time.Sleep(2 * time.Millisecond)
				inside.Add(-1)
				done.Add(1)
				if err := l.Unlock(context.WithoutCancel(ctx)); err != nil {
					t.Errorf("worker %d: Unlock: %v", w, err)
				}
			}
		}()
	}
	wg.Wait()
	if got := maxInside.Load(); got != 1 {
		t.Errorf("at most %d workers were inside the lock at once, want 1", got)
	}
	if got := done.Load(); got != workers*turns {
		t.Errorf("%d critical sections ran, want %d", got, workers*turns)
	}
}

// The timeout error names who holds the lock and the run to look at.
func TestLockTimeoutNamesHolder(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bucket := newBucket(t)
	holder := newBackend(t, s3b.Config{Bucket: bucket}, "prod", s3b.Options{})
	waiter := newBackend(t, s3b.Config{Bucket: bucket}, "prod", s3b.Options{LockTimeout: 300 * time.Millisecond, PollInterval: 20 * time.Millisecond})
	info := statemgr.LockInfo{Operation: "apply", Who: "alice@runner-7", RunURL: "https://github.com/acme/infra/actions/runs/4242"}
	l, err := holder.Lock(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock(ctx)
	start := time.Now()
	_, err = waiter.Lock(ctx, lockInfo("bob"))
	var le *statemgr.LockedError
	if !errors.As(err, &le) {
		t.Fatalf("Lock error = %v, want a *LockedError", err)
	}
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Errorf("gave up after %s, before the 300ms timeout", el)
	}
	for _, want := range []string{"alice@runner-7", "https://github.com/acme/infra/actions/runs/4242", l.Info().ID, "force-unlock"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("timeout message %q does not mention %q", err, want)
		}
	}
}

// A lock object left by a dead run (old heartbeat) is broken by the next
// run once StaleAfter old (counted from the later of its heartbeat and its
// LastModified), and the new lock carries the new run's token.
func TestLockBreaksAbandonedLock(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bucket := newBucket(t)
	b := newBackend(t, s3b.Config{Bucket: bucket, Prefix: "p"}, "prod", s3b.Options{StaleAfter: time.Second, LockTimeout: 5 * time.Second, PollInterval: 20 * time.Millisecond})
	old := time.Now().Add(-time.Hour)
	dead, _ := json.Marshal(statemgr.LockInfo{ID: "deadbeef", Who: "ghost", Created: old, Heartbeat: old})
	rawPut(t, bucket, "p/state.prod.json.lock", dead)
	start := time.Now()
	l, err := b.Lock(ctx, lockInfo("next"))
	if err != nil {
		t.Fatalf("Lock over an abandoned lock: %v", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("breaking an hour-old lock took %s", el)
	}
	var stored statemgr.LockInfo
	if err := json.Unmarshal(rawGet(t, bucket, "p/state.prod.json.lock"), &stored); err != nil || stored.ID != l.Info().ID {
		t.Errorf("lock object holds %+v (%v), want token %s", stored, err, l.Info().ID)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Errorf("Unlock: %v", err)
	}
	if raw := rawGet(t, bucket, "p/state.prod.json.lock"); raw != nil {
		t.Errorf("lock object still there after Unlock: %s", raw)
	}
}

// A holder that stops beating (SIGKILL) is broken once its heartbeat is
// StaleAfter old, not before; its late Unlock says it lost the lock and
// leaves the new holder's lock alone.
func TestLockBreaksKilledHolderAfterThreshold(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bucket := newBucket(t)
	const stale = 500 * time.Millisecond
	killed := newBackend(t, s3b.Config{Bucket: bucket}, "prod", s3b.Options{Heartbeat: time.Hour})
	next := newBackend(t, s3b.Config{Bucket: bucket}, "prod", s3b.Options{StaleAfter: stale, LockTimeout: 10 * time.Second, PollInterval: 20 * time.Millisecond})
	// The heartbeat is stamped inside Lock: counting from before it, the
	// break can come no sooner than stale, however slow the server answers.
	start := time.Now()
	dead, err := killed.Lock(ctx, lockInfo("killed"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := next.Lock(ctx, lockInfo("next"))
	if err != nil {
		t.Fatalf("Lock after the holder died: %v", err)
	}
	el := time.Since(start)
	if el < stale || el > stale+3*time.Second {
		t.Errorf("stale lock broken after %s, want about %s", el, stale)
	}
	if err := dead.Unlock(ctx); !errors.Is(err, s3b.ErrLockLost) {
		t.Errorf("the broken holder's Unlock = %v, want ErrLockLost", err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Errorf("the new holder's Unlock: %v (the broken holder removed its lock?)", err)
	}
}

// A live holder whose heartbeat runs is never broken, however long it
// holds the lock and however many wait for it.
func TestLockLiveHolderIsNeverBroken(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bucket := newBucket(t)
	const stale = 600 * time.Millisecond // heartbeat every 50ms: a wide margin on a loaded CI machine
	holder := newBackend(t, s3b.Config{Bucket: bucket}, "prod", s3b.Options{Heartbeat: 50 * time.Millisecond})
	l, err := holder.Lock(ctx, lockInfo("live"))
	if err != nil {
		t.Fatal(err)
	}
	created := l.Info().Heartbeat
	var wg sync.WaitGroup
	for i := range 3 {
		w := newBackend(t, s3b.Config{Bucket: bucket}, "prod", s3b.Options{StaleAfter: stale, LockTimeout: 4 * stale, PollInterval: 15 * time.Millisecond})
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := w.Lock(ctx, lockInfo("contender"))
			if err == nil {
				t.Errorf("contender %d broke a live lock", i)
				_ = got.Unlock(ctx)
			}
		}()
	}
	wg.Wait()
	if !l.Info().Heartbeat.After(created) {
		t.Errorf("heartbeat never refreshed: still %s", created)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Errorf("live holder's Unlock: %v", err)
	}
}

// When its lock is force-unlocked, the holder's heartbeat notices (the
// conditional refresh fails) and Unlock reports the loss.
func TestLockHeartbeatNoticesLoss(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bucket := newBucket(t)
	holder := newBackend(t, s3b.Config{Bucket: bucket}, "", s3b.Options{Heartbeat: 20 * time.Millisecond})
	admin := newBackend(t, s3b.Config{Bucket: bucket}, "", s3b.Options{})
	l, err := holder.Lock(ctx, lockInfo("holder"))
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.ForceUnlock(ctx, "wrong-token"); !errors.Is(err, statemgr.ErrWrongToken) || strings.Contains(err.Error(), l.Info().ID) {
		t.Errorf("ForceUnlock(wrong token) = %v, want a refusal that does not reveal token %s", err, l.Info().ID)
	}
	if err := admin.ForceUnlock(ctx, l.Info().ID); err != nil {
		t.Fatalf("ForceUnlock: %v", err)
	}
	lost := l.(interface{ Lost() error })
	deadline := time.Now().Add(3 * time.Second)
	for lost.Lost() == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !errors.Is(lost.Lost(), s3b.ErrLockLost) {
		t.Errorf("Lost() = %v after force-unlock, want ErrLockLost", lost.Lost())
	}
	if err := l.Unlock(ctx); !errors.Is(err, s3b.ErrLockLost) {
		t.Errorf("Unlock = %v, want ErrLockLost", err)
	}
}

// A lock object that is not a lock blocks (saying so) until it is old.
func TestLockCorruptLockObject(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bucket := newBucket(t)
	rawPut(t, bucket, "state.json.lock", []byte("garbage"))
	b := newBackend(t, s3b.Config{Bucket: bucket}, "", s3b.Options{LockTimeout: 100 * time.Millisecond, PollInterval: 20 * time.Millisecond})
	if _, err := b.Lock(ctx, lockInfo("x")); err == nil || !strings.Contains(err.Error(), "not a valid lock") {
		t.Errorf("Lock over a garbage lock object = %v, want a LockedError saying it is not a valid lock", err)
	}
	// Its age is its LastModified (second resolution).
	b = newBackend(t, s3b.Config{Bucket: bucket}, "", s3b.Options{StaleAfter: 300 * time.Millisecond, LockTimeout: 5 * time.Second, PollInterval: 50 * time.Millisecond})
	l, err := b.Lock(ctx, lockInfo("x"))
	if err != nil {
		t.Fatalf("Lock over an old garbage lock object: %v", err)
	}
	_ = l.Unlock(ctx)
}

// Eight runs find the same abandoned lock at once: the conditional
// overwrite lets only one breaker's lock stand, round after round.
func TestLockBreakersCannotBothWin(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bucket := newBucket(t)
	const racers, rounds, stale = 8, 5, 300 * time.Millisecond
	bs := make([]*s3b.Backend, racers)
	for i := range bs {
		bs[i] = newBackend(t, s3b.Config{Bucket: bucket}, "", s3b.Options{LockTimeout: -1, StaleAfter: stale, Heartbeat: 30 * time.Millisecond})
	}
	old := time.Now().Add(-time.Hour)
	for round := range rounds {
		dead, _ := json.Marshal(statemgr.LockInfo{ID: "dead-" + randHex(4), Who: "ghost", Created: old, Heartbeat: old})
		rawPut(t, bucket, "state.json.lock", dead)
		// Its age counts from the later of its heartbeat and the object's
		// LastModified (a holder's clock may run behind).
		time.Sleep(stale + 50*time.Millisecond)
		var wg sync.WaitGroup
		start := make(chan struct{})
		locks := make([]statemgr.Lock, racers)
		for i, b := range bs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				locks[i], _ = b.Lock(ctx, lockInfo("breaker"))
			}()
		}
		close(start)
		wg.Wait()
		var winners []statemgr.Lock
		for _, l := range locks {
			if l != nil {
				winners = append(winners, l)
			}
		}
		if len(winners) != 1 {
			t.Errorf("round %d: %d breakers hold the lock, want 1", round, len(winners))
		}
		for _, l := range winners {
			_ = l.Unlock(ctx)
		}
	}
}
