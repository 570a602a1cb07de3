package workspace

import (
	"errors"
	"strings"

	"github.com/kyku/action/internal/statemgr"
)

// The texts of the layout move (layoutmove.go), golden-tested in
// testdata/layout.md.

// Notice is the one line that says what moved.
func (m *LayoutMove) Notice() string {
	return "kyku: moved local state from " + m.Old + " to " + m.New + " (" + strings.Join(m.Moved, ", ") + "). " +
		m.New + " is git-ignored (its own .gitignore); " + m.Old + " is now only for the settings you commit (config.yaml, policies/)."
}

// LayoutConflictError: local state of the same kind is in both places.
// Nothing was moved, read or written.
type LayoutConflictError struct {
	Old, New     string
	InOld, InNew []string // what each holds
}

func (e *LayoutConflictError) Error() string {
	return "local state for this configuration is in both " + e.Old + " (" + strings.Join(e.InOld, ", ") + "), where kyku kept it before, and " +
		e.New + " (" + strings.Join(e.InNew, ", ") + "), where it lives now: nothing was moved, read or written. " +
		"Keep the current one (compare the serials in the state files), move the other one's files elsewhere, and run again"
}

// LayoutLockedError: another run holds the lock of the old place, so its
// state was not moved under it.
type LayoutLockedError struct {
	Old, New string
	Holder   statemgr.LockInfo
	Err      error // the *statemgr.LockedError
}

func (e *LayoutLockedError) Error() string {
	return "local state in " + e.Old + " was not moved to " + e.New + ": it is locked by " + e.Holder.Describe() +
		", and is not moved under a running kyku. Run again when that run is done (if it is dead, remove " + e.Old + "/.kyku.lock)"
}

func (e *LayoutLockedError) Unwrap() error { return e.Err }

// IsLayoutConflict reports whether err is a *LayoutConflictError.
func IsLayoutConflict(err error) bool {
	var c *LayoutConflictError
	return errors.As(err, &c)
}
