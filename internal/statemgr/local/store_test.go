package local

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

func TestFileNames(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		env, state, journal, describe string
	}{
		{"prod", "state.prod.json", "state.prod.journal", "local .kyku/state.prod.json"},
		{"", "state.json", "state.journal", "local .kyku/state.json"},
	} {
		t.Run("env="+tc.env, func(t *testing.T) {
			dir := t.TempDir()
			b := New(dir, tc.env, fastOptions())
			if got := New(".kyku", tc.env, Options{}).Describe(); got != tc.describe {
				t.Errorf("Describe() = %q, want %q", got, tc.describe)
			}
			writeState(t, b, statemgrtest.NewState("lin-1", 1, "web"))
			if err := b.Append(ctx, state.Entry{Seq: 1, Lineage: "lin-1", Op: state.OpDelete, Name: "web"}); err != nil {
				t.Fatal(err)
			}
			l, err := b.Lock(ctx, statemgrtest.NewLockInfo("apply"))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Unlock(ctx)
			for _, name := range []string{tc.state, tc.journal, ".kyku.lock"} {
				if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
					t.Errorf("expected file %s: %v", name, err)
				}
			}
		})
	}
}

func TestEnvironmentsShareTheLockButNotTheState(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	prod, staging := New(dir, "prod", fastOptions()), New(dir, "staging", fastOptions())
	writeState(t, prod, statemgrtest.NewState("lin-prod", 1, "web"))
	if f, err := staging.Read(ctx); err != nil || f != nil {
		t.Fatalf("staging Read = %v, %v; want no state", f, err)
	}
	l, err := prod.Lock(ctx, statemgrtest.NewLockInfo("apply"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock(ctx)
	var le *statemgr.LockedError
	if _, err := staging.Lock(ctx, statemgrtest.NewLockInfo("plan")); !errors.As(err, &le) {
		t.Errorf("staging Lock while prod holds the directory lock: %v; want *LockedError", err)
	}
}

func TestCorruptStateRefusedAndUntouched(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		name    string
		content string
		wantErr error
		wantMsg string
	}{
		{"not json", "{\"metadata\": {\"version\": 1, \"lin", state.ErrCorrupt, "state is corrupt"},
		{"empty", "", state.ErrCorrupt, "state is corrupt"},
		{"no metadata", `{"resources": {}}`, state.ErrCorrupt, "no metadata.version"},
		{"future version", `{"metadata": {"version": 99, "lineage": "x", "serial": 3}, "resources": {}}`, state.ErrUnsupportedVersion, "upgrade kyku"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "state.prod.json")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			b := New(dir, "prod", fastOptions())
			_, err := b.Read(ctx)
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("Read error = %v; want %v naming %s and saying %q", err, tc.wantErr, path, tc.wantMsg)
			}
			for _, force := range []bool{false, true} {
				err := b.Write(ctx, statemgrtest.NewState("lin-1", 100, "web"), statemgr.WriteOptions{Force: force})
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), "refusing to overwrite") {
					t.Errorf("Write(force=%v) error = %v; want a refusal wrapping %v", force, err, tc.wantErr)
				}
			}
			if got := readFile(t, path); !bytes.Equal(got, []byte(tc.content)) {
				t.Errorf("state file changed after refused writes:\n%s", got)
			}
		})
	}
}

func TestWriteRefusesStatesItCouldNotReadBack(t *testing.T) {
	b := New(t.TempDir(), "prod", fastOptions())
	noLineage := statemgrtest.NewState("", 1)
	oldVersion := statemgrtest.NewState("lin-1", 1)
	oldVersion.Metadata.Version = 0
	for name, f := range map[string]*state.File{"nil": nil, "no lineage": noLineage, "version 0": oldVersion} {
		if err := b.Write(t.Context(), f, statemgr.WriteOptions{Force: true}); err == nil {
			t.Errorf("%s: Write succeeded", name)
		}
	}
}

func TestConflictNamesThePath(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	a, b := New(dir, "prod", fastOptions()), New(dir, "prod", fastOptions())
	writeState(t, a, statemgrtest.NewState("lin-1", 1))
	_, _ = b.Read(ctx)
	writeState(t, a, statemgrtest.NewState("lin-1", 2))
	err := b.Write(ctx, statemgrtest.NewState("lin-1", 3), statemgr.WriteOptions{})
	if !errors.Is(err, statemgr.ErrConflict) || !strings.Contains(err.Error(), "changed since it was read") || !strings.Contains(err.Error(), "state.prod.json") {
		t.Errorf("conflict error = %v; want ErrConflict saying the file changed since it was read", err)
	}
	// A deleted state is a change too.
	_, _ = b.Read(ctx)
	if err := os.Remove(filepath.Join(dir, "state.prod.json")); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(ctx, statemgrtest.NewState("lin-1", 3), statemgr.WriteOptions{}); !errors.Is(err, statemgr.ErrConflict) {
		t.Errorf("write after the state was removed: %v; want ErrConflict", err)
	}
}

// Readers racing a writer only ever see a whole old or a whole new state:
// Write goes through a temp file and a rename.
func TestReadersNeverSeeAPartialState(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	w := New(dir, "prod", fastOptions())
	writeState(t, w, bigState(100))
	path := filepath.Join(dir, "state.prod.json")
	stop, reading := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	var reads int
	wg.Go(func() {
		defer func() {
			if reads == 0 {
				close(reading) // failed before its first read: said above
			}
		}()
		for {
			select {
			case <-stop:
				return
			default:
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("read during writes: %v", err)
				return
			}
			if _, err := state.Decode(path, data); err != nil {
				t.Errorf("partial state seen by a reader: %v", err)
				return
			}
			if reads++; reads == 1 {
				close(reading)
			}
		}
	})
	<-reading // the writes start once the reader reads: on a loaded machine it may not have run yet
	f := bigState(100)
	for serial := int64(2); serial < 12; serial++ {
		f.Metadata.Serial = serial
		if err := w.Write(ctx, f, statemgr.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if reads == 0 {
		t.Error("the reader never ran")
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".state.prod.json.tmp-*"))
	if len(leftovers) != 0 {
		t.Errorf("temp files left behind: %v", leftovers)
	}
}
