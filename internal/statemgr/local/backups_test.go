package local

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

func TestBackupNamesAndRetention(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		env  string
		want []string
	}{
		{"prod", []string{
			"backups/state.prod.20261129T180506.123Z.4.json",
			"backups/state.prod.20261129T180505.123Z.3.json",
		}},
		{"", []string{
			"backups/state.20261129T180506.123Z.4.json",
			"backups/state.20261129T180505.123Z.3.json",
		}},
	} {
		t.Run("env="+tc.env, func(t *testing.T) {
			dir := t.TempDir()
			clock := newFakeClock()
			b := New(dir, tc.env, Options{Now: clock.Now, BackupRetention: 2})
			// Another environment's backups and stray files are not ours.
			other := New(dir, "prod-eu", Options{Now: clock.Now})
			if _, err := other.Backup(ctx, statemgrtest.NewState("lin-eu", 9)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "backups", "notes.txt"), []byte("hi"), 0o644); err != nil {
				t.Fatal(err)
			}
			for serial := int64(0); serial <= 4; serial++ {
				clock.Add(time.Second)
				if _, err := b.Backup(ctx, statemgrtest.NewState("lin-1", serial, "web")); err != nil {
					t.Fatal(err)
				}
			}
			list, err := b.ListBackups(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, bi := range list {
				got = append(got, bi.Key)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("backups (-want +got):\n%s", d)
			}
			wantInfo := statemgr.BackupInfo{Key: tc.want[0], Serial: 4, Created: time.Date(2026, 11, 29, 18, 5, 6, 123_000_000, time.UTC)}
			if d := cmp.Diff(wantInfo, list[0]); d != "" {
				t.Errorf("newest backup info (-want +got):\n%s", d)
			}
			// Retention never touched the other environment's backup or stray files.
			files, _ := os.ReadDir(filepath.Join(dir, "backups"))
			var names []string
			for _, f := range files {
				names = append(names, f.Name())
			}
			sort.Strings(names)
			if len(names) != 4 {
				t.Errorf("backups dir holds %v; want our 2, prod-eu's 1 and notes.txt", names)
			}
		})
	}
}

func TestBackupsInOneMillisecondDoNotOverwrite(t *testing.T) {
	ctx := t.Context()
	clock := newFakeClock()
	b := New(t.TempDir(), "prod", Options{Now: clock.Now})
	first := statemgrtest.NewState("lin-1", 3, "a")
	second := statemgrtest.NewState("lin-1", 3, "b")
	k1, err := b.Backup(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := b.Backup(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	if k1 == k2 {
		t.Fatalf("two backups got one key %s", k1)
	}
	for key, want := range map[string]string{k1: "a", k2: "b"} {
		f, err := b.ReadBackup(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := f.Resources[want]; !ok {
			t.Errorf("backup %s lost its content: %v", key, f.Names())
		}
	}
}

func TestReadBackupRefusesOtherKeys(t *testing.T) {
	b := New(t.TempDir(), "prod", Options{})
	for _, key := range []string{"state.prod.json", "../backups/x.json", "backups/../state.prod.json"} {
		if _, err := b.ReadBackup(t.Context(), key); err == nil {
			t.Errorf("ReadBackup(%q) succeeded", key)
		}
	}
}
