package statemgrtest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

func testJournal(t *testing.T, newBackend Factory) {
	ctx := context.Background()

	t.Run("empty journal has no entries", func(t *testing.T) {
		got := mustEntries(t, newBackend(t))
		if len(got) != 0 {
			t.Errorf("Entries() = %v, want none", got)
		}
	})

	t.Run("concurrent appends come back in seq order", func(t *testing.T) {
		a, other := newBackend(t), newBackend(t)
		const n = 16
		want := make([]state.Entry, n)
		for i := range want {
			want[i] = putEntry(int64(i+1), 3, fmt.Sprintf("vm-%02d", i))
		}
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := n - 1; i >= 0; i-- {
			wg.Go(func() { errs <- a.Append(ctx, want[i]) })
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("Append: %v", err)
			}
		}
		for name, b := range map[string]statemgr.Backend{"writer": a, "other": other} {
			if d := cmp.Diff(want, mustEntries(t, b)); d != "" {
				t.Errorf("%s: entries (-want +got):\n%s", name, d)
			}
		}
	})

	t.Run("entries fold into the state", func(t *testing.T) {
		b := newBackend(t)
		base := NewState("lin-1", 3, "main-vpc", "old-vm")
		entries := []state.Entry{
			putEntry(1, 3, "web"),
			{Seq: 2, BaseSerial: 3, Lineage: "lin-1", Op: state.OpDelete, Name: "old-vm"},
			putEntry(3, 2, "already-folded"), // older base serial: ignored
		}
		for _, e := range entries {
			if err := b.Append(ctx, e); err != nil {
				t.Fatalf("Append: %v", err)
			}
		}
		got := base.Clone()
		if !state.Fold(got, mustEntries(t, b)) {
			t.Fatal("Fold reported no change")
		}
		want := base.Clone()
		want.Resources["web"] = NewResource("web", 1)
		delete(want.Resources, "old-vm")
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("folded state (-want +got):\n%s", d)
		}
	})

	t.Run("a move survives the journal and renames on fold", func(t *testing.T) {
		b := newBackend(t)
		base := NewState("lin-1", 3, "app-server")
		mv := state.Entry{Seq: 1, BaseSerial: 3, Lineage: "lin-1", Op: state.OpMove, Name: `web["a"]`, From: "app-server"}
		if err := b.Append(ctx, mv); err != nil {
			t.Fatalf("Append: %v", err)
		}
		es := mustEntries(t, b)
		if d := cmp.Diff([]state.Entry{mv}, es); d != "" {
			t.Fatalf("entries (-want +got):\n%s", d)
		}
		got := base.Clone()
		if !state.Fold(got, es) {
			t.Fatal("Fold reported no change")
		}
		want := base.Clone()
		r := want.Resources["app-server"]
		delete(want.Resources, "app-server")
		r.Name = `web["a"]`
		want.Resources[`web["a"]`] = r
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("folded state (-want +got):\n%s", d)
		}
	})

	t.Run("clear removes every entry and is idempotent", func(t *testing.T) {
		b := newBackend(t)
		for i := int64(1); i <= 3; i++ {
			if err := b.Append(ctx, putEntry(i, 1, "web")); err != nil {
				t.Fatalf("Append: %v", err)
			}
		}
		for range 2 {
			if err := b.ClearJournal(ctx); err != nil {
				t.Fatalf("ClearJournal: %v", err)
			}
		}
		if got := mustEntries(t, b); len(got) != 0 {
			t.Errorf("after clear: %d entries, want 0", len(got))
		}
		if err := b.Append(ctx, putEntry(1, 2, "web")); err != nil {
			t.Fatalf("Append after clear: %v", err)
		}
		if got := mustEntries(t, b); len(got) != 1 || got[0].BaseSerial != 2 {
			t.Errorf("after clear and append: %+v, want the one new entry", got)
		}
	})
}

func putEntry(seq, base int64, name string) state.Entry {
	return state.Entry{Seq: seq, BaseSerial: base, Lineage: "lin-1", Op: state.OpPut, Name: name, Resource: NewResource(name, 1)}
}

func mustEntries(t *testing.T, b statemgr.Backend) []state.Entry {
	t.Helper()
	es, err := b.Entries(context.Background())
	if err != nil {
		t.Fatalf("Entries: %v", err)
	}
	return es
}
