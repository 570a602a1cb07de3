package bot

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

// TestTurnsFirstComeFirstServed: jobs waiting for a state's turn get it
// in the order they came, one at a time; one that gives up (its context
// ends) leaves the line without holding up the others, giving back a turn
// twice passes it on once, another key never waits, and nothing is left
// behind.
func TestTurnsFirstComeFirstServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ts turns
		var mu sync.Mutex
		var order []string
		gives := map[string]func(){}
		got := func(name string, give func()) {
			mu.Lock()
			defer mu.Unlock()
			order = append(order, name)
			gives[name] = give
		}
		give := func(name string) {
			mu.Lock()
			g := gives[name]
			mu.Unlock()
			g()
		}
		holds := func() []string {
			synctest.Wait()
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), order...)
		}

		first, err := ts.take(t.Context(), "env:a", nil)
		if err != nil {
			t.Fatal(err)
		}
		got("first", first)
		var waited []string
		var wg sync.WaitGroup
		quitter, quit := context.WithCancel(t.Context())
		for _, w := range []struct {
			name string
			ctx  context.Context
		}{{"second", t.Context()}, {"quitter", quitter}, {"third", t.Context()}} {
			wg.Go(func() {
				give, err := ts.take(w.ctx, "env:a", func() {
					mu.Lock()
					waited = append(waited, w.name)
					mu.Unlock()
				})
				if err != nil {
					if w.name != "quitter" || !errors.Is(err, context.Canceled) {
						t.Errorf("%s: %v", w.name, err)
					}
					return
				}
				got(w.name, give)
			})
			synctest.Wait() // each joins the line before the next
		}
		other, err := ts.take(t.Context(), "env:b", func() { t.Error("another state's job waited") })
		if err != nil {
			t.Fatal(err)
		}
		other()

		if diff := cmp.Diff([]string{"first"}, holds()); diff != "" {
			t.Fatalf("while the first holds the turn (-want +got):\n%s", diff)
		}
		quit()
		give("first")
		give("first") // twice: passes the turn on once
		if diff := cmp.Diff([]string{"first", "second"}, holds()); diff != "" {
			t.Fatalf("after the first (-want +got):\n%s", diff)
		}
		give("second")
		if diff := cmp.Diff([]string{"first", "second", "third"}, holds()); diff != "" {
			t.Fatalf("after the second (-want +got):\n%s", diff)
		}
		give("third")
		wg.Wait()
		if diff := cmp.Diff([]string{"second", "quitter", "third"}, waited); diff != "" {
			t.Errorf("said they waited (-want +got):\n%s", diff)
		}
		if len(ts.lines) != 0 {
			t.Errorf("lines left behind: %v", ts.lines)
		}
	})
}
