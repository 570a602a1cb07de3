package httpstate_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/httpstate"
	"github.com/kyku/action/internal/statemgr/httpstate/httpstatetest"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

// Failures in transit that outlast retryMax (3 here: 4 attempts) do not end
// Lock early: it tries again until the lock timeout, as for a held lock.
func TestLockOutlastsRetryMaxUntilLockTimeout(t *testing.T) {
	ctx := t.Context()
	srv := httpstatetest.New(t)
	b := open(t, srv, "prod", nil)
	srv.Fail(6)
	l, err := b.Lock(ctx, statemgrtest.NewLockInfo("apply"))
	if err != nil {
		t.Fatalf("Lock through 6 failures with a %s lock timeout: %v", statemgrtest.LockTimeout, err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// A LOCK that landed but whose every answer was lost is found on the next
// look as our own lock, not left held by a run that thinks it failed.
func TestLockWhoseAnswersAreAllLostIsNotLeftHeld(t *testing.T) {
	ctx := t.Context()
	srv := httpstatetest.New(t)
	b := open(t, srv, "prod", nil)
	srv.Lose(4) // the first LOCK lands; its 3 retries see it held (by us), unanswered
	l, err := b.Lock(ctx, statemgrtest.NewLockInfo("apply"))
	if err != nil {
		t.Fatalf("Lock whose 4 answers were lost: %v", err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if held := srv.Lock("prod"); held != nil {
		t.Errorf("lock left held: %s", held)
	}

	// With no waiting (a negative lock timeout) Lock gives up at once, and
	// releases what may have landed.
	once, err := httpstate.New(httpstate.Config{Address: srv.URL + "once", LockAddress: srv.URL + "once",
		RetryMax: 1, RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond},
		"", httpstate.Options{LockTimeout: -1, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv.Lose(2)
	if _, err := once.Lock(ctx, statemgrtest.NewLockInfo("apply")); err == nil || !strings.Contains(err.Error(), "once") {
		t.Errorf("Lock with no answers and no waiting = %v; want an error naming the lock address", err)
	}
	if held := srv.Lock("once"); held != nil {
		t.Errorf("a failed Lock left the lock held: %s", held)
	}
}

// An UNLOCK whose retries run out is tried again (for a bounded time), so
// the lock is not left for a human to force-unlock.
func TestUnlockOutlastsRetryMax(t *testing.T) {
	ctx := t.Context()
	srv := httpstatetest.New(t)
	b := open(t, srv, "prod", nil)
	l, err := b.Lock(ctx, statemgrtest.NewLockInfo("apply"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Fail(6)
	if err := l.Unlock(ctx); err != nil {
		t.Fatalf("Unlock through 6 failures: %v", err)
	}
	if held := srv.Lock("prod"); held != nil {
		t.Errorf("lock left held: %s", held)
	}
}

// A state POST that landed but whose every answer was lost is recognised
// by reading the document back: the Write succeeds, and the next Write is
// not refused as a conflict with "another run".
func TestWriteWhoseAnswersAreAllLostIsRecognised(t *testing.T) {
	ctx := t.Context()
	srv := httpstatetest.New(t)
	b := open(t, srv, "prod", nil)
	l, err := b.Lock(ctx, statemgrtest.NewLockInfo("apply"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Unlock(ctx) }()
	srv.LoseMethod("POST", 4) // every attempt of the first Write lands unanswered
	if err := b.Write(ctx, statemgrtest.NewState("lin", 1, "web"), statemgr.WriteOptions{}); err != nil {
		t.Fatalf("Write whose 4 answers were lost: %v", err)
	}
	if err := b.Write(ctx, statemgrtest.NewState("lin", 2, "web", "db"), statemgr.WriteOptions{}); err != nil {
		t.Fatalf("the next Write: %v", err)
	}
	st, err := b.Read(ctx)
	if err != nil || st.Metadata.Serial != 2 || len(st.Resources) != 2 {
		t.Fatalf("state after the writes = %+v, %v; want serial 2 with web and db", st, err)
	}
}
