//go:build unix

package tfplugin

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockLog locks a keeper's log while the keeper runs: the answer box
// removes only logs no keeper holds (statemgr/local).
func lockLog(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) }
