package statemgr

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// ErrLockLost is wrapped by a held lock's Unlock (and by the heartbeat's
// report) when the lock was taken from its holder: broken as stale, or
// force-unlocked.
var ErrLockLost = errors.New("lock lost")

// ErrWrongToken is wrapped by ForceUnlock's refusal of a token that is not
// the held lock's. The refusal never says which token is: a guess does not
// earn it (the token is in the message of a run waiting for the lock).
var ErrWrongToken = errors.New("that is not the token of the lock held")

// NewLockID returns a random lock token (16 hex digits).
func NewLockID() string {
	buf := make([]byte, 8)
	_, _ = rand.Read(buf) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(buf)
}

// WithDefaults returns i with what the caller left empty filled in: a new
// token, and the host and pid of this process.
func (i LockInfo) WithDefaults(host string, pid int) LockInfo {
	if i.ID == "" {
		i.ID = NewLockID()
	}
	if i.PID == 0 {
		i.PID = pid
	}
	if i.Host == "" {
		i.Host = host
	}
	return i
}

// Describe names the holder for messages: who, the operation, the process
// and since when, and the run when known.
func (i LockInfo) Describe() string {
	s := fmt.Sprintf("%s, operation %q, pid %d on %s, since %s", orUnknown(i.Who), i.Operation, i.PID, i.Host, i.Created.UTC().Format(time.RFC3339))
	if i.Job.ID != "" {
		s += ", job " + i.Job.ID
	}
	if i.RunURL != "" {
		s += ", run " + i.RunURL
	}
	return s
}

// CorruptLockError is the error of a Lock that gave up (cause says why; nil
// on timeout) while path held a body that is not a lock, last changed at
// beat; bad says so and what to do.
func CorruptLockError(path string, beat time.Time, cause, bad error) *LockedError {
	if cause != nil {
		bad = fmt.Errorf("%w (%w)", cause, bad)
	}
	return &LockedError{Holder: LockInfo{Path: path, Created: beat, Heartbeat: beat}, Err: bad}
}
