package durable_test

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/durable"
)

// TestSyncDir: directories that exist are synced; one that does not is
// an error naming it.
func TestSyncDir(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := durable.SyncDir(a, b); err != nil {
		t.Fatalf("SyncDir(%s, %s): %v", a, b, err)
	}
	gone := filepath.Join(a, "gone")
	err := durable.SyncDir(a, gone)
	if err == nil || !strings.Contains(err.Error(), "sync directory "+gone) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("SyncDir of a missing directory: %v, want an error naming it", err)
	}
}
