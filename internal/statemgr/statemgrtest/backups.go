package statemgrtest

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

func testBackups(t *testing.T, newBackend Factory) {
	ctx := context.Background()

	t.Run("none at first", func(t *testing.T) {
		list, err := newBackend(t).ListBackups(ctx)
		if err != nil || len(list) != 0 {
			t.Fatalf("ListBackups() = %v, %v; want none", list, err)
		}
	})

	t.Run("newest first, readable, oldest beyond retention removed", func(t *testing.T) {
		b, other := newBackend(t), newBackend(t)
		const n = BackupRetention + 2
		written := map[string]*state.File{}
		var keys []string
		for serial := int64(1); serial <= n; serial++ {
			f := NewState("lin-1", serial, "web")
			key, err := b.Backup(ctx, f)
			if err != nil {
				t.Fatalf("Backup(serial %d): %v", serial, err)
			}
			written[key] = f
			keys = append(keys, key)
		}
		list, err := other.ListBackups(ctx)
		if err != nil {
			t.Fatalf("ListBackups: %v", err)
		}
		var gotSerials []int64
		for _, bi := range list {
			gotSerials = append(gotSerials, bi.Serial)
		}
		if d := cmp.Diff([]int64{5, 4, 3}, gotSerials); d != "" {
			t.Fatalf("backup serials, newest first, retention %d (-want +got):\n%s", BackupRetention, d)
		}
		for i, bi := range list {
			if bi.Created.IsZero() {
				t.Errorf("backup %s has no creation time", bi.Key)
			}
			if i > 0 && bi.Created.After(list[i-1].Created) {
				t.Errorf("backup %s is newer than %s listed before it", bi.Key, list[i-1].Key)
			}
			got, err := other.ReadBackup(ctx, bi.Key)
			if err != nil {
				t.Fatalf("ReadBackup(%s): %v", bi.Key, err)
			}
			if d := cmp.Diff(written[bi.Key], got); d != "" {
				t.Errorf("backup %s (-want +got):\n%s", bi.Key, d)
			}
		}
		if _, err := other.ReadBackup(ctx, keys[0]); !errors.Is(err, statemgr.ErrNotFound) {
			t.Errorf("ReadBackup of the backup removed by retention: %v; want ErrNotFound", err)
		}
	})
}
