//go:build unix

package tfplugin

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockLog locks a keeper's log while the keeper runs: the answer box
// removes only logs no keeper holds (statemgr/local).
func lockLog(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) }

// lockNote locks a note while its create is made, waiting for a fold
// that holds it (statemgr/local: AnswerDir.LockNotes).
func lockNote(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}
