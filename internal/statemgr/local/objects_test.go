package local

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

func TestObjectsAreFilesUnderTheDirectory(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	b := New(dir, "prod", fastOptions())
	if err := b.PutObject(ctx, "plans/prod/pr-12.json", []byte(`{"pr":12}`)); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "plans", "prod", "pr-12.json")); string(got) != `{"pr":12}` {
		t.Errorf("object file holds %s", got)
	}
	// The lock and temp files of writes in progress are not objects.
	l, err := b.Lock(ctx, statemgrtest.NewLockInfo("apply"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock(ctx)
	if err := os.WriteFile(filepath.Join(dir, "plans", "prod", ".pr-13.json.tmp-123"), []byte("partial"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeState(t, b, statemgrtest.NewState("lin-1", 1))
	got, err := b.ListObjects(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"plans/prod/pr-12.json", "state.prod.json"}, got); d != "" {
		t.Errorf("ListObjects(\"\") (-want +got):\n%s", d)
	}
}
