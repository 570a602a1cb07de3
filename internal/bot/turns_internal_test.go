package bot

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// line is a test's view of one key's turns: who got theirs, in order,
// and who said they waited.
type line struct {
	t      *testing.T
	ts     *turns
	mu     sync.Mutex
	got    []string
	waited []string
	gives  map[string]func()
	wg     sync.WaitGroup
}

// join sends name into the line (alone or shared) and waits until it
// either holds its turn or waits for it.
func (l *line) join(ctx context.Context, name string, alone bool) {
	l.wg.Go(func() {
		give, err := l.ts.take(ctx, "env:a", alone, func() {
			l.mu.Lock()
			l.waited = append(l.waited, name)
			l.mu.Unlock()
		})
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				l.t.Errorf("%s: %v", name, err)
			}
			return
		}
		l.mu.Lock()
		l.got = append(l.got, name)
		l.gives[name] = give
		l.mu.Unlock()
	})
	synctest.Wait()
}

func (l *line) give(name string) {
	l.mu.Lock()
	g := l.gives[name]
	l.mu.Unlock()
	g()
	synctest.Wait()
}

// want checks who got their turn so far (in any order: shared turns
// given at once are taken in any order).
func (l *line) want(when string, names ...string) {
	l.t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if diff := cmp.Diff(names, l.got, cmpopts.SortSlices(strings.Compare)); diff != "" {
		l.t.Fatalf("%s (-want +got):\n%s", when, diff)
	}
}

// TestTurnsFirstComeFirstServed: a turn alone is held by one job at a
// time, in the order they came; shared ones together, but none past a
// turn alone waiting before it (nor it past them); one that gives up (its
// context ends) leaves the line without holding up the others; giving a
// turn back twice passes it on once; another key never waits; nothing is
// left behind.
func TestTurnsFirstComeFirstServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &line{t: t, ts: &turns{}, gives: map[string]func(){}}
		quitter, quit := context.WithCancel(t.Context())
		l.join(t.Context(), "apply 1 (no leases)", true)
		l.join(t.Context(), "apply 2 (no leases)", true)
		l.join(quitter, "apply 3 gives up", true)
		l.join(t.Context(), "plan 4 (leases)", false)
		l.join(t.Context(), "plan 5 (leases)", false)
		l.join(t.Context(), "drift 6", true)
		l.join(t.Context(), "plan 7 (leases)", false)
		other, err := l.ts.take(t.Context(), "env:b", true, func() { t.Error("another state's job waited") })
		if err != nil {
			t.Fatal(err)
		}
		other()
		l.want("at first", "apply 1 (no leases)")

		quit()
		synctest.Wait()
		l.give("apply 1 (no leases)")
		l.give("apply 1 (no leases)") // twice: passes the turn on once
		l.want("after apply 1", "apply 1 (no leases)", "apply 2 (no leases)")
		l.give("apply 2 (no leases)")
		l.want("after apply 2", "apply 1 (no leases)", "apply 2 (no leases)", "plan 4 (leases)", "plan 5 (leases)")
		l.give("plan 5 (leases)")
		l.want("while plan 4 runs, the drift check waits, and plan 7 behind it",
			"apply 1 (no leases)", "apply 2 (no leases)", "plan 4 (leases)", "plan 5 (leases)")
		l.give("plan 4 (leases)")
		l.want("after the plans", "apply 1 (no leases)", "apply 2 (no leases)", "plan 4 (leases)", "plan 5 (leases)", "drift 6")
		l.give("drift 6")
		l.want("after the drift check", "apply 1 (no leases)", "apply 2 (no leases)", "plan 4 (leases)", "plan 5 (leases)", "drift 6", "plan 7 (leases)")
		l.give("plan 7 (leases)")
		l.wg.Wait()
		if diff := cmp.Diff([]string{"apply 2 (no leases)", "apply 3 gives up", "plan 4 (leases)", "plan 5 (leases)", "drift 6", "plan 7 (leases)"}, l.waited, cmpopts.SortSlices(strings.Compare)); diff != "" {
			t.Errorf("said they waited (-want +got):\n%s", diff)
		}
		if len(l.ts.lines) != 0 {
			t.Errorf("lines left behind: %v", l.ts.lines)
		}
	})
}

// TestSharedTurnsDoNotWait: jobs on a state with leases hold their turns
// together, none waiting.
func TestSharedTurnsDoNotWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &line{t: t, ts: &turns{}, gives: map[string]func(){}}
		for _, n := range []string{"plan 1", "apply 2", "apply 3"} {
			l.join(t.Context(), n, false)
		}
		l.want("at once", "plan 1", "apply 2", "apply 3")
		for _, n := range []string{"apply 2", "plan 1", "apply 3"} {
			l.give(n)
		}
		l.wg.Wait()
		if len(l.waited) != 0 || len(l.ts.lines) != 0 {
			t.Errorf("waited %v, left %v", l.waited, l.ts.lines)
		}
	})
}
