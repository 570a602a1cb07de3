package tfconfig

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/kyku/action/internal/tfconfig/benchchains"
)

// TestLoadKeepsLittle: a module loaded from .ci/bench-reads' configuration
// of 5,000 resource blocks keeps, beside the file's text, what its
// resources use of the syntax tree (2,500 bytes a block), not the whole
// tree (3,400 bytes a block when the module kept every file's).
func TestLoadKeepsLittle(t *testing.T) {
	dir := t.TempDir()
	data := []byte(benchchains.TF(5000, "cloud", "v2"))
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := Load(dir, nil, Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	kept := (after.HeapAlloc - before.HeapAlloc - uint64(len(data))) / 5000
	runtime.KeepAlive(m)
	if kept > 3000 {
		t.Errorf("the loaded module keeps %d bytes a resource block; want less than 3,000", kept)
	}
}
