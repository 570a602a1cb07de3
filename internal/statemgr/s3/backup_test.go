package s3_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/statemgr"
	s3b "github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

// Backups before each apply are listed newest first, restorable to the
// very same state, and pruned beyond the retention; another environment's
// backups (even one whose name extends ours) are not touched.
func TestBackupsRestoreAndRetention(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bucket := newBucket(t)
	clock := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	now := func() time.Time { clock = clock.Add(time.Minute); return clock }
	b := newBackend(t, s3b.Config{Bucket: bucket, Prefix: "infra", BackupRetention: 3}, "prod", s3b.Options{Now: now})
	other := newBackend(t, s3b.Config{Bucket: bucket, Prefix: "infra", BackupRetention: 1}, "prod.eu", s3b.Options{})
	if _, err := other.Backup(ctx, statemgrtest.NewState("eu", 1, "x")); err != nil {
		t.Fatal(err)
	}
	var states = map[int64]string{}
	for serial := int64(1); serial <= 5; serial++ {
		key, err := b.Backup(ctx, statemgrtest.NewState("lin", serial, "vpc"))
		if err != nil {
			t.Fatal(err)
		}
		states[serial] = key
	}
	list, err := b.ListBackups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, bi := range list {
		got = append(got, bi.Serial)
	}
	if d := cmp.Diff([]int64{5, 4, 3}, got); d != "" {
		t.Errorf("backups kept (newest first, retention 3) (-want +got):\n%s", d)
	}
	if len(list) > 0 && (list[0].Key != states[5] || !list[0].Created.Equal(clock.Truncate(time.Millisecond))) {
		t.Errorf("newest backup = %+v, want key %s created %s", list[0], states[5], clock)
	}
	for _, name := range []string{states[4], "infra/" + states[4], "s3://" + bucket + "/infra/" + states[4]} {
		f, err := b.ReadBackup(ctx, name)
		if err != nil {
			t.Fatalf("ReadBackup(%q): %v", name, err)
		}
		if d := cmp.Diff(statemgrtest.NewState("lin", 4, "vpc"), f); d != "" {
			t.Errorf("restored state differs (-want +got):\n%s", d)
		}
	}
	if _, err := b.ReadBackup(ctx, states[1]); !errors.Is(err, statemgr.ErrNotFound) {
		t.Errorf("ReadBackup(pruned) = %v, want ErrNotFound", err)
	}
	if _, err := b.ReadBackup(ctx, "../state.prod.json"); err == nil {
		t.Errorf("ReadBackup outside backups/ succeeded")
	}
	if eu, err := other.ListBackups(ctx); err != nil || len(eu) != 1 {
		t.Errorf("other environment's backups = %v, %v; want its 1 backup untouched", eu, err)
	}
	// Restoring is a forced write of the backup.
	f, _ := b.ReadBackup(ctx, states[3])
	if err := b.Write(ctx, f, statemgr.WriteOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if cur, err := b.Read(ctx); err != nil || cur.Metadata.Serial != 3 {
		t.Errorf("after restore: %+v, %v; want serial 3", cur, err)
	}
}
