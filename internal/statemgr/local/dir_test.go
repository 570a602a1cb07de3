package local

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

// TestLockLeavesNoDirectoryBehind: a lock taken and released in a state
// directory that did not exist (a plan before the first apply) leaves
// nothing behind, not even the directory or its missing parents; one that
// wrote state keeps it.
func TestLockLeavesNoDirectoryBehind(t *testing.T) {
	ctx := t.Context()
	root := t.TempDir()
	dir := filepath.Join(root, "infra", ".kyku")
	b := New(dir, "", fastOptions())
	l, err := b.Lock(ctx, statemgr.LockInfo{Operation: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := b.Read(ctx); err != nil || st != nil {
		t.Fatalf("Read = %v, %v; want no state", st, err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("a lock that wrote nothing left %v in %s", entries, root)
	}

	l, err = b.Lock(ctx, statemgr.LockInfo{Operation: "apply"})
	if err != nil {
		t.Fatal(err)
	}
	writeState(t, b, statemgrtest.NewState("lin", 1))
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "state.json")); err != nil {
		t.Errorf("the state written under the lock is gone: %v", err)
	}
}

// TestLockersOnAMissingDirectory: runs that lock a missing directory at
// once each get the lock in turn, although one that created the directory
// removes it on Unlock while others wait for it, and leave no lock behind.
func TestLockersOnAMissingDirectory(t *testing.T) {
	ctx := t.Context()
	root := t.TempDir()
	dir := filepath.Join(root, ".kyku")
	opts := fastOptions()
	opts.LockTimeout = 10 * time.Second
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := New(dir, "", opts)
			for range 10 {
				l, err := b.Lock(ctx, statemgr.LockInfo{Operation: "plan"})
				if err != nil {
					errs <- err
					return
				}
				if err := l.Unlock(ctx); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("lock on a directory others create and remove: %v", err)
	}
	// The last holder may not be the run that created the directory: then
	// it stays, empty (as it did before locks removed what they created).
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v behind in %s", entries, dir)
	}
}
