package local

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
)

// TestLockMakesItsDirectoryAgain: another run's Unlock removes, empty,
// the directories its lock made; when it does so while this run's lock
// is making them (a bot's two environments of one repository, in one new
// directory), the lock makes them again instead of failing with "no such
// file or directory".
func TestLockMakesItsDirectoryAgain(t *testing.T) {
	root := filepath.Join(t.TempDir(), "state", "repo.1")
	raced := false
	mkdirAll = func(dir string, perm fs.FileMode) error {
		if !raced {
			raced = true // the other run removed the parent just now
			return &fs.PathError{Op: "mkdir", Path: dir, Err: fs.ErrNotExist}
		}
		return os.MkdirAll(dir, perm)
	}
	t.Cleanup(func() { mkdirAll = os.MkdirAll })
	l, err := New(root, "prod", Options{LockTimeout: time.Second}).Lock(t.Context(), statemgr.LockInfo{Who: "test", Operation: "apply"})
	if err != nil {
		t.Fatalf("lock: %v", err)
	}
	if err := l.Unlock(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !raced {
		t.Fatal("the lock made no directory: the test tests nothing")
	}
}
