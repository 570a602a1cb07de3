package statemgrtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/kyku/action/internal/statemgr"
)

// testConditional checks statemgr.Conditional on backends that offer it:
// a record created once across processes, replaced and deleted only on
// the version read.
func testConditional(t *testing.T, newBackend Factory) {
	ctx := context.Background()
	open := func(t *testing.T) statemgr.Conditional {
		t.Helper()
		c, ok := newBackend(t).(statemgr.Conditional)
		if !ok {
			t.Skip("the backend offers no conditional writes")
		}
		return c
	}
	unsupported := func(t *testing.T, err error) {
		t.Helper()
		if errors.Is(err, statemgr.ErrNotConditional) {
			t.Skip("the store does not enforce conditional writes")
		}
	}

	t.Run("create once, read, replace and delete on the version read", func(t *testing.T) {
		a, b := open(t), open(t)
		v1, err := a.CreateObject(ctx, "claims/x.json", []byte(`{"n":1}`))
		unsupported(t, err)
		if err != nil || v1 == "" {
			t.Fatalf("CreateObject: version %q, %v", v1, err)
		}
		if _, err := b.CreateObject(ctx, "claims/x.json", []byte(`{"n":2}`)); !errors.Is(err, statemgr.ErrExists) {
			t.Fatalf("second CreateObject: %v, want ErrExists", err)
		}
		data, v, err := b.ReadObject(ctx, "claims/x.json")
		if err != nil || string(data) != `{"n":1}` || v != v1 {
			t.Fatalf("ReadObject = %s, %q, %v; want the first body at %q", data, v, err, v1)
		}
		v2, err := b.ReplaceObject(ctx, "claims/x.json", []byte(`{"n":3}`), v1)
		if err != nil || v2 == "" || v2 == v1 {
			t.Fatalf("ReplaceObject on the version read: %q, %v", v2, err)
		}
		if _, err := a.ReplaceObject(ctx, "claims/x.json", []byte(`{"n":4}`), v1); !errors.Is(err, statemgr.ErrConflict) {
			t.Fatalf("ReplaceObject on a stale version: %v, want ErrConflict", err)
		}
		if err := a.DeleteObject(ctx, "claims/x.json", v1); !errors.Is(err, statemgr.ErrConflict) {
			t.Fatalf("DeleteObject on a stale version: %v, want ErrConflict", err)
		}
		if data, _, _ := a.ReadObject(ctx, "claims/x.json"); string(data) != `{"n":3}` {
			t.Fatalf("after the refused writes the object holds %s", data)
		}
		if err := a.DeleteObject(ctx, "claims/x.json", v2); err != nil {
			t.Fatalf("DeleteObject on the version read: %v", err)
		}
		if err := b.DeleteObject(ctx, "claims/x.json", v2); err != nil {
			t.Fatalf("DeleteObject of a gone object: %v, want nil", err)
		}
		if _, _, err := b.ReadObject(ctx, "claims/x.json"); !errors.Is(err, statemgr.ErrNotFound) {
			t.Fatalf("ReadObject after delete: %v, want ErrNotFound", err)
		}
		if _, err := b.ReplaceObject(ctx, "claims/x.json", []byte(`{}`), v2); !errors.Is(err, statemgr.ErrConflict) {
			t.Fatalf("ReplaceObject of a gone object: %v, want ErrConflict", err)
		}
		if _, err := b.CreateObject(ctx, "claims/x.json", []byte(`{"n":5}`)); err != nil {
			t.Fatalf("CreateObject after delete: %v", err)
		}
	})

	t.Run("of many creating at once one wins", func(t *testing.T) {
		backends := []statemgr.Conditional{open(t), open(t), open(t)}
		if _, err := backends[0].CreateObject(ctx, "claims/probe.json", []byte(`{}`)); err != nil {
			unsupported(t, err)
			t.Fatal(err)
		}
		const n = 12
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = backends[i%len(backends)].CreateObject(ctx, "claims/race.json", fmt.Appendf(nil, `{"who":%d}`, i))
			}()
		}
		wg.Wait()
		won := 0
		for i, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, statemgr.ErrExists):
				t.Errorf("creator %d: %v", i, err)
			}
		}
		if won != 1 {
			t.Errorf("%d creators won, want exactly 1", won)
		}
	})
}
