package statemgrtest

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

func testStore(t *testing.T, newBackend Factory) {
	ctx := context.Background()

	t.Run("read of an empty store is nil", func(t *testing.T) {
		b := newBackend(t)
		f, err := b.Read(ctx)
		if err != nil || f != nil {
			t.Fatalf("Read() = %v, %v; want nil, nil", f, err)
		}
	})

	t.Run("round trip", func(t *testing.T) {
		a, other := newBackend(t), newBackend(t)
		mustRead(t, a)
		want := NewState("lin-1", 1, "main-vpc", "web", "db")
		mustWrite(t, a, want, statemgr.WriteOptions{})
		for name, b := range map[string]statemgr.Backend{"writer": a, "other": other} {
			got, err := b.Read(ctx)
			if err != nil {
				t.Fatalf("%s: Read: %v", name, err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s: state after round trip (-want +got):\n%s", name, d)
			}
		}
	})

	t.Run("successive writes need no read in between", func(t *testing.T) {
		b := newBackend(t)
		mustRead(t, b)
		for serial := int64(1); serial <= 3; serial++ {
			mustWrite(t, b, NewState("lin-1", serial, "web"), statemgr.WriteOptions{})
		}
		if got := mustRead(t, b); got.Metadata.Serial != 3 {
			t.Errorf("serial = %d, want 3", got.Metadata.Serial)
		}
	})

	t.Run("first of two writers wins, the second gets ErrConflict", func(t *testing.T) {
		a, b := newBackend(t), newBackend(t)
		mustWrite(t, a, NewState("lin-1", 1, "web"), statemgr.WriteOptions{})
		mustRead(t, a)
		mustRead(t, b)
		winner := NewState("lin-1", 2, "web", "a-only")
		mustWrite(t, a, winner, statemgr.WriteOptions{})
		// Same lineage and a higher serial: only the change since b's read
		// tells that b would lose a's update.
		err := b.Write(ctx, NewState("lin-1", 3, "web", "b-only"), statemgr.WriteOptions{})
		wantConflict(t, err)
		if d := cmp.Diff(winner, mustRead(t, b)); d != "" {
			t.Errorf("stored state is not the winner's (-want +got):\n%s", d)
		}
		// Having read again, b may write.
		mustWrite(t, b, NewState("lin-1", 4, "web", "a-only", "b-only"), statemgr.WriteOptions{})
	})

	t.Run("write over a state never read is a conflict", func(t *testing.T) {
		a, b := newBackend(t), newBackend(t)
		mustWrite(t, a, NewState("lin-1", 1, "web"), statemgr.WriteOptions{})
		wantConflict(t, b.Write(ctx, NewState("lin-1", 9, "web"), statemgr.WriteOptions{}))
	})

	t.Run("lineage mismatch refused", func(t *testing.T) {
		b := newBackend(t)
		mustWrite(t, b, NewState("lin-1", 1, "web"), statemgr.WriteOptions{})
		wantConflict(t, b.Write(ctx, NewState("lin-OTHER", 2, "web"), statemgr.WriteOptions{}))
		if got := mustRead(t, b); got.Metadata.Lineage != "lin-1" || got.Metadata.Serial != 1 {
			t.Errorf("stored metadata = %+v, want lineage lin-1 serial 1 untouched", got.Metadata)
		}
	})

	t.Run("serial must rise", func(t *testing.T) {
		b := newBackend(t)
		mustWrite(t, b, NewState("lin-1", 5, "web"), statemgr.WriteOptions{})
		for _, serial := range []int64{5, 4, 0} {
			wantConflict(t, b.Write(ctx, NewState("lin-1", serial, "web", "new"), statemgr.WriteOptions{}))
		}
		if got := mustRead(t, b); got.Metadata.Serial != 5 || len(got.Resources) != 1 {
			t.Errorf("stored state changed: serial %d, %d resources", got.Metadata.Serial, len(got.Resources))
		}
	})

	t.Run("force overrides lineage, serial and a concurrent writer", func(t *testing.T) {
		a, b := newBackend(t), newBackend(t)
		mustWrite(t, a, NewState("lin-1", 7, "web"), statemgr.WriteOptions{})
		pushed := NewState("lin-2", 1, "restored")
		mustWrite(t, b, pushed, statemgr.WriteOptions{Force: true})
		if d := cmp.Diff(pushed, mustRead(t, a)); d != "" {
			t.Errorf("forced state not stored (-want +got):\n%s", d)
		}
	})
}

func mustRead(t *testing.T, b statemgr.Backend) *state.File {
	t.Helper()
	f, err := b.Read(context.Background())
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return f
}

func mustWrite(t *testing.T, b statemgr.Backend, f *state.File, opts statemgr.WriteOptions) {
	t.Helper()
	if err := b.Write(context.Background(), f, opts); err != nil {
		t.Fatalf("Write(serial %d): %v", f.Metadata.Serial, err)
	}
}

func wantConflict(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, statemgr.ErrConflict) {
		t.Errorf("Write error = %v; want one wrapping statemgr.ErrConflict", err)
	}
}
