// Package durable makes changes to the file system survive a machine
// crash: what a rename, a create or a removal did to a directory's names
// is lost with the page cache until the directory itself is synced.
package durable

import (
	"fmt"
	"os"
)

// SyncDir syncs each of dirs, making the renames, creates and removals
// in them durable.
func SyncDir(dirs ...string) error {
	for _, dir := range dirs {
		d, err := os.Open(dir)
		if err != nil {
			return fmt.Errorf("sync directory %s: %w", dir, err)
		}
		err = d.Sync()
		d.Close()
		if err != nil {
			return fmt.Errorf("sync directory %s: %w", dir, err)
		}
	}
	return nil
}
