package tflayout

import (
	"context"
	"errors"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/tfstate"
)

// Slot is where one workspace's Terraform state lives and how its lock is
// taken there, as OpenTofu does it.
type Slot interface {
	// Get returns the state's bytes and their version; an error wrapping
	// statemgr.ErrNotFound when there is no state (or an empty one).
	Get(ctx context.Context) ([]byte, statemgr.Version, error)
	// Put stores data only while the stored version is v ("": none is
	// stored; Unconditional: whatever is), where the store can tell;
	// otherwise an error wrapping statemgr.ErrConflict. lockID is the held lock's ID ("" when none is
	// held): some stores want it with the write.
	Put(ctx context.Context, data []byte, v statemgr.Version, lockID string) (statemgr.Version, error)
	// TryLock takes the lock once with body: the body as stored (its ID
	// the store's token), or an error wrapping ErrHeld with the holder's
	// body when another holds it.
	TryLock(ctx context.Context, body LockInfo) (LockInfo, error)
	// Unlock releases the lock this process holds as id.
	Unlock(ctx context.Context, id string) error
	// ForceUnlock removes the lock if its ID is id, whoever holds it;
	// statemgr.ErrWrongToken when its ID is another.
	ForceUnlock(ctx context.Context, id string) error
	// Form is how OpenTofu lays out the state there.
	Form() tfstate.Form
	// Where names the state (a path or URL), LockPath the lock.
	Where() string
	LockPath() string
}

// LocalSlot is a Slot that is a file on this machine (OpenTofu's local
// backend): only beside one are a journal keeper's answers kept and read.
type LocalSlot interface {
	Slot
	OnThisMachine()
}

// ErrHeld is wrapped by TryLock when another holds the lock.
var ErrHeld = errors.New("the state lock is held")

// HeldError is TryLock's error when another holds the lock: Holder is the
// holder's body (zero when the store holds none readable).
type HeldError struct {
	Holder LockInfo
	PID    int   // the holder's process, when the store tells (0: it does not)
	Err    error // what else went wrong reading it, if anything
}

func (e *HeldError) Error() string {
	s := "the state lock is held"
	if e.Holder.ID != "" {
		s += " (ID " + e.Holder.ID + ")"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *HeldError) Unwrap() []error { return []error{ErrHeld, e.Err} }

// Aside keeps what Kyku adds beside the state.
type Aside interface {
	statemgr.Journal
	statemgr.Backups
	statemgr.Objects
}

// ExtraKey is the object, in the Aside, that keeps tfstate.Extra.
const ExtraKey = "tfstate-extra.json"
