// Package leasesuite is the conformance suite of per-object leases
// (package lease) on a backend's conditional writes: every store leases
// are offered on runs it (S3 in package lease's tests, GCS in package
// gcs's).
package leasesuite

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/statemgr"
)

// Open returns a Store on one fresh location, as another process would
// open it each time it is called with the same location.
type Open func(t *testing.T, location string) lease.Store

// Run runs the suite; newLocation returns a location of a test's own.
func Run(t *testing.T, newLocation func(t *testing.T) string, open Open) {
	fast := lease.Options{Timeout: 300 * time.Millisecond, Poll: 20 * time.Millisecond, Heartbeat: 50 * time.Millisecond, StaleAfter: 10 * time.Second}
	holder := func(who string, pr int) lease.Holder {
		return lease.Holder{PR: pr, Lock: statemgr.LockInfo{Who: who, Operation: "apply", RunURL: "https://ci.example/" + who}}
	}

	t.Run("disjoint sets are held at once; overlapping waits, then refuses naming every object its holder has", func(t *testing.T) {
		loc := newLocation(t)
		a, b := lease.New(open(t, loc), "", fast), lease.New(open(t, loc), "", fast)
		sa, err := a.Acquire(t.Context(), []string{"x", "y", "z"}, holder("alice", 1))
		if err != nil {
			t.Fatal(err)
		}
		sb, err := b.Acquire(t.Context(), []string{"w"}, holder("bob", 2))
		if err != nil {
			t.Fatalf("a disjoint set waited: %v", err)
		}
		_, err = b.Acquire(t.Context(), []string{"w2", "y", "z"}, holder("carol", 3))
		var he *lease.HeldError
		if !errors.As(err, &he) || he.Holder.PR != 1 || !slices.Equal(he.Objects, []string{"y", "z"}) {
			t.Fatalf("overlapping Acquire = %v, want a *HeldError naming y, z and PR 1", err)
		}
		for _, want := range []string{`objects "y", "z" are leased`, "alice", "pull request #1", "https://ci.example/alice"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q does not say %q", err, want)
			}
		}
		// All or none: carol's w2 was released when she gave up.
		if sc, err := a.Acquire(t.Context(), []string{"w2"}, holder("dave", 4)); err != nil {
			t.Errorf("w2 stayed leased by the refused set: %v", err)
		} else {
			_ = sc.Release(t.Context())
		}
		if err := sa.Release(t.Context()); err != nil {
			t.Errorf("release: %v", err)
		}
		_ = sb.Release(t.Context())
	})

	t.Run("a waiting Acquire gets the objects once released", func(t *testing.T) {
		loc := newLocation(t)
		m := lease.New(open(t, loc), "", lease.Options{Timeout: 10 * time.Second, Poll: 20 * time.Millisecond})
		s, err := m.Acquire(t.Context(), []string{"x"}, holder("alice", 1))
		if err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(200*time.Millisecond, func() { _ = s.Release(context.Background()) })
		s2, err := lease.New(open(t, loc), "", lease.Options{Timeout: 10 * time.Second, Poll: 20 * time.Millisecond}).Acquire(t.Context(), []string{"x"}, holder("bob", 2))
		if err != nil {
			t.Fatalf("waiting Acquire: %v", err)
		}
		_ = s2.Release(t.Context())
	})

	t.Run("a stale lease is taken over, and its holder learns it lost it", func(t *testing.T) {
		loc := newLocation(t)
		now := time.Now()
		clock := func() time.Time { return now }
		old := lease.New(open(t, loc), "", lease.Options{Timeout: -1, Heartbeat: 20 * time.Millisecond, StaleAfter: time.Minute, Now: clock})
		s, err := old.Acquire(t.Context(), []string{"x"}, holder("alice", 1))
		if err != nil {
			t.Fatal(err)
		}
		later := func() time.Time { return now.Add(2 * time.Minute) }
		taker := lease.New(open(t, loc), "", lease.Options{Timeout: 5 * time.Second, Poll: 10 * time.Millisecond, StaleAfter: time.Minute, Heartbeat: time.Hour, Now: later})
		s2, err := taker.Acquire(t.Context(), []string{"x"}, holder("bob", 2))
		if err != nil {
			t.Fatalf("the stale lease was not taken over: %v", err)
		}
		// The old holder's heartbeat finds the lease taken: it renews no
		// more, its Release says so and deletes nothing of bob's.
		for deadline := time.Now().Add(5 * time.Second); s.Lost() == nil && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if err := s.Release(t.Context()); !errors.Is(err, statemgr.ErrLockLost) {
			t.Errorf("release after takeover = %v, want the lease lost", err)
		}
		if _, err := lease.New(open(t, loc), "", fast).Acquire(t.Context(), []string{"x"}, holder("carol", 3)); err == nil {
			t.Error("the old holder's Release deleted bob's lease")
		}
		_ = s2.Release(t.Context())
	})

	t.Run("a run's journal is its own and Orphans finds it once its leases are gone", func(t *testing.T) {
		loc := newLocation(t)
		m := lease.New(open(t, loc), "", fast)
		s, err := m.Acquire(t.Context(), []string{"x"}, lease.Holder{Run: "run1", Lock: statemgr.LockInfo{Who: "alice"}})
		if err != nil {
			t.Fatal(err)
		}
		j := m.Journal("run1", func(string) string { return "v0" })
		other := m.Journal("run2", nil)
		if err := j.Append(t.Context(), stateEntry(1, "x")); err != nil {
			t.Fatal(err)
		}
		if err := j.Append(t.Context(), stateEntry(1, "x")); err != nil {
			t.Errorf("the same entry again: %v", err)
		}
		if err := other.ClearJournal(t.Context()); err != nil {
			t.Fatal(err)
		}
		if orphans, err := m.Orphans(t.Context(), ""); err != nil || len(orphans) != 0 {
			t.Errorf("Orphans while run1 holds its leases = %v, %v; want none", orphans, err)
		}
		_ = s.Release(t.Context())
		orphans, err := m.Orphans(t.Context(), "")
		if err != nil || len(orphans) != 1 || orphans[0].Run() != "run1" {
			t.Fatalf("Orphans after run1 ended = %v, %v; want run1's", orphans, err)
		}
		recs, err := orphans[0].Records(t.Context())
		if err != nil || len(recs) != 1 || recs[0].Prior["x"] != "v0" {
			t.Errorf("run1's journal = %+v, %v; want its one entry, based on v0", recs, err)
		}
	})
	t.Run("a renewal written but cut short still leaves nothing held once released", func(t *testing.T) {
		// The heartbeat's renewal is cancelled by Release's Stop after the
		// store wrote it: the set never learns the new version.
		loc := newLocation(t)
		store := &landsCancelled{Store: open(t, loc)}
		m := lease.New(store, "", fast)
		s, err := m.Acquire(t.Context(), []string{"x"}, holder("alice", 1))
		if err != nil {
			t.Fatal(err)
		}
		store.arm()
		select {
		case <-store.landed:
		case <-time.After(5 * time.Second):
			t.Fatal("no renewal in 5s")
		}
		_ = s.Release(t.Context())
		if live, err := m.Live(t.Context()); err != nil || len(live) != 0 {
			t.Errorf("Live after Release = %v, %v; want none", live, err)
		}
		other := lease.New(open(t, loc), "", lease.Options{Timeout: -1, StaleAfter: time.Hour})
		s2, err := other.Acquire(t.Context(), []string{"x"}, holder("bob", 2))
		if err != nil {
			t.Fatalf("x stayed leased after Release: %v", err)
		}
		_ = s2.Release(t.Context())
	})
}

// landsCancelled is a Store whose next ReplaceObject, once armed, is
// written and then reported cut short (context.Canceled), as a request
// cancelled after the server applied it.
type landsCancelled struct {
	lease.Store
	mu     sync.Mutex
	armed  bool
	landed chan struct{}
}

func (l *landsCancelled) arm() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.armed, l.landed = true, make(chan struct{})
}

func (l *landsCancelled) ReplaceObject(ctx context.Context, key string, data []byte, v statemgr.Version) (statemgr.Version, error) {
	nv, err := l.Store.ReplaceObject(ctx, key, data, v)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil || !l.armed {
		return nv, err
	}
	l.armed = false
	close(l.landed)
	return "", context.Canceled
}
