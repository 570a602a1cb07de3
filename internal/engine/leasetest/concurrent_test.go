package leasetest_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
)

// spans records when each change started and finished.
type spans struct {
	mu            sync.Mutex
	start, finish map[string]time.Time
}

func (s *spans) Event(e progress.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e.Kind {
	case progress.Started:
		s.start[e.Name] = time.Now()
	case progress.Done:
		s.finish[e.Name] = time.Now()
	}
}

// TestDisjointAppliesRunAtOnce: two applies changing different objects of
// one state, started together, both change the cloud at the same time
// (neither waits for the other's leases), and the state keeps both
// changes: the second writer merged its object into the first's state.
func TestDisjointAppliesRunAtOnce(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(true), groups(t, 4, nil), nil)
	w.latency = 300 * time.Millisecond
	sp := &spans{start: map[string]time.Time{}, finish: map[string]time.Time{}}
	var waited []string
	var mu sync.Mutex
	ctx := statemgr.WithLockWaiting(t.Context(), func(h statemgr.LockInfo, _ time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		waited = append(waited, h.Who)
	})
	cfgs := []map[int]int{{0: 9000}, {1: 9001}}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, ports := range cfgs {
		e := w.engine(true, func(o *engine.Options) { o.Hook = sp; o.Lock.Who = "apply-" + string(rune('a'+i)) })
		wg.Go(func() {
			res, err := e.Apply(ctx, groups(t, 4, ports), engine.ApplyOptions{AutoApprove: true}, nil)
			if err == nil {
				err = res.Err()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if len(waited) > 0 {
		t.Errorf("disjoint applies waited for each other's leases: %v", waited)
	}
	if !sp.start["t1"].Before(sp.finish["t0"]) || !sp.start["t0"].Before(sp.finish["t1"]) {
		t.Errorf("the changes did not overlap: t0 %s–%s, t1 %s–%s", sp.start["t0"].Format(time.StampMilli), sp.finish["t0"].Format(time.StampMilli),
			sp.start["t1"].Format(time.StampMilli), sp.finish["t1"].Format(time.StampMilli))
	}
	st := w.state()
	if got := []any{st.Resources["t0"].Config["port"], st.Resources["t1"].Config["port"]}; !cmp.Equal(got, []any{float64(9000), float64(9001)}) {
		t.Errorf("state ports t0, t1 = %v, want both changes (none lost)", got)
	}
	if diff := cmp.Diff(w.cloud(), stateObjects(st)); diff != "" {
		t.Errorf("state differs from the cloud (-cloud +state):\n%s", diff)
	}
}

// TestOverlappingApplyWaitsOrRefusesNamingTheHolder: an apply that needs
// an object another run holds waits for it; past its timeout it refuses,
// naming the object, the holder, its run and its pull request, and
// changes nothing.
func TestOverlappingApplyWaitsOrRefusesNamingTheHolder(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(true), groups(t, 2, nil), nil)
	m := lease.New(w.backend(), "", w.leases)
	held, err := m.Acquire(t.Context(), []string{"t0"}, lease.Holder{PR: 7, Lock: statemgr.LockInfo{Who: "alice@ci", RunURL: "https://ci.example/run/42", Operation: "apply"}})
	if err != nil {
		t.Fatal(err)
	}
	before := w.state().Metadata.Serial

	w.leases.Timeout = 300 * time.Millisecond
	_, err = apply(t, w.engine(true), groups(t, 2, map[int]int{0: 9000}), nil)
	var he *lease.HeldError
	if !errors.As(err, &he) {
		t.Fatalf("err = %v, want a *lease.HeldError", err)
	}
	for _, want := range []string{`object "t0" is leased`, "alice@ci", "https://ci.example/run/42", "pull request #7"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	if got := w.state().Metadata.Serial; got != before {
		t.Errorf("the refused apply wrote the state (serial %d → %d)", before, got)
	}

	// Waiting: it goes on once the holder is done.
	w.leases.Timeout = 20 * time.Second
	e := w.engine(true)
	var told []string
	ctx := statemgr.WithLockWaiting(t.Context(), func(h statemgr.LockInfo, _ time.Duration) { told = append(told, h.Who) })
	time.AfterFunc(300*time.Millisecond, func() { _ = held.Release(context.Background()) })
	res, err := e.Apply(ctx, groups(t, 2, map[int]int{0: 9000}), engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil {
		t.Fatalf("apply after the holder released: %v", err)
	}
	if err := res.Err(); err != nil {
		t.Fatalf("apply after the holder released: %v", err)
	}
	if diff := cmp.Diff([]string{"alice@ci"}, told); diff != "" {
		t.Errorf("waiting told (-want +got):\n%s", diff)
	}
}

// TestWholeStateOperationsAndLeasedAppliesExcludeEachOther: a destroy
// (under the whole-state lock, writing any object) waits for the leased
// applies running and refuses past its timeout naming the object held and
// its holder; a leased apply waits for a whole-state operation the same
// way. Neither changes anything when refused.
func TestWholeStateOperationsAndLeasedAppliesExcludeEachOther(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(true), groups(t, 2, nil), nil)
	cloud := w.cloud()
	m := lease.New(w.backend(), "", w.leases)
	held, err := m.Acquire(t.Context(), []string{"t1"}, lease.Holder{PR: 9, Lock: statemgr.LockInfo{Who: "bob@ci", Operation: "apply"}})
	if err != nil {
		t.Fatal(err)
	}
	w.leases.Timeout = 300 * time.Millisecond
	_, err = w.engine(true).Destroy(t.Context(), engine.ApplyOptions{AutoApprove: true})
	if !isHeld(err) || !strings.Contains(err.Error(), `object "t1" is leased`) || !strings.Contains(err.Error(), "pull request #9") {
		t.Errorf("destroy while t1 is leased: %v, want a refusal naming t1 and #9", err)
	}
	if diff := cmp.Diff(cloud, w.cloud()); diff != "" {
		t.Errorf("the refused destroy changed the cloud:\n%s", diff)
	}
	if err := held.Release(t.Context()); err != nil {
		t.Fatal(err)
	}

	whole, err := m.AcquireWhole(t.Context(), lease.Holder{Lock: statemgr.LockInfo{Who: "carol@laptop", Operation: "destroy"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = apply(t, w.engine(true), groups(t, 2, map[int]int{0: 9000}), nil)
	if !isHeld(err) || !strings.Contains(err.Error(), "the whole state is held") || !strings.Contains(err.Error(), "carol@laptop") {
		t.Errorf("leased apply during a whole-state operation: %v, want a refusal naming carol", err)
	}
	if diff := cmp.Diff(cloud, w.cloud()); diff != "" {
		t.Errorf("the refused apply changed the cloud:\n%s", diff)
	}
	if err := whole.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	mustApply(t, w.engine(true), groups(t, 2, map[int]int{0: 9000}), nil)
}

// TestDisjointAppliesOnLocalState: leases on a local state directory (its
// conditional writes under an fcntl lock): two applies of different
// objects at once keep both changes.
func TestDisjointAppliesOnLocalState(t *testing.T) {
	dir := t.TempDir()
	open := func() *engine.Engine {
		p, err := sim.New(sim.Options{Dir: filepath.Join(dir, "sim"), LatencyMin: 100 * time.Millisecond, LatencyMax: 100 * time.Millisecond, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		b := local.New(filepath.Join(dir, "state"), "", local.Options{})
		m, err := lease.For(t.Context(), b, "", lease.Options{Poll: 20 * time.Millisecond})
		if err != nil || m == nil {
			t.Fatalf("lease.For(local) = %v, %v", m, err)
		}
		return engine.New(p, b, engine.Options{DeployPrefix: "test", Leases: m})
	}
	mustApply(t, open(), groups(t, 2, nil), nil)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		e := open()
		wg.Go(func() { _, errs[i] = apply(t, e, groups(t, 2, map[int]int{i: 9000 + i}), nil) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	st, err := local.New(filepath.Join(dir, "state"), "", local.Options{}).Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := []any{st.Resources["t0"].Config["port"], st.Resources["t1"].Config["port"]}; !cmp.Equal(got, []any{float64(9000), float64(9001)}) {
		t.Errorf("state ports t0, t1 = %v, want both changes", got)
	}
}
