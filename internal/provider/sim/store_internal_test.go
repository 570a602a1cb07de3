package sim

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Both ways of linking a new object into place — by its descriptor
// (AT_EMPTY_PATH, where the process may) and through /proc/self/fd —
// write the whole object, atomically, and refuse a path that exists.
func TestLinkNewEitherWay(t *testing.T) {
	for _, way := range []struct {
		name string
		mode int32
	}{{"by descriptor where allowed", 0}, {"through /proc", -1}} {
		t.Run(way.name, func(t *testing.T) {
			defer emptyPathLink.Store(emptyPathLink.Load())
			emptyPathLink.Store(way.mode)
			dir := t.TempDir()
			path := filepath.Join(dir, "10000001.json")
			err := linkNew(path, []byte(`{"id":"10000001"}`))
			if errors.Is(err, errNoTmpfile) {
				t.Skip("no O_TMPFILE here: linkFile is used instead")
			}
			if err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != `{"id":"10000001"}` {
				t.Fatalf("object file: %q, %v", b, err)
			}
			if err := linkNew(path, []byte(`{"id":"other"}`)); !errors.Is(err, fs.ErrExist) {
				t.Errorf("a second object at the same path: %v, want fs.ErrExist", err)
			}
			if b, _ := os.ReadFile(path); string(b) != `{"id":"10000001"}` {
				t.Errorf("the first object was overwritten: %q", b)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("the directory holds %d files, want the object alone", len(entries))
			}
			// A directory gone is ENOENT (retryMissingDir recreates it),
			// not taken for a refusal of AT_EMPTY_PATH.
			os.RemoveAll(dir)
			if err := linkNew(path, []byte(`{}`)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("linking into a removed directory: %v, want fs.ErrNotExist", err)
			}
			if way.mode == 0 && emptyPathLink.Load() == -1 && os.Geteuid() == 0 {
				t.Log("AT_EMPTY_PATH refused to root here; /proc was used")
			}
		})
	}
}
