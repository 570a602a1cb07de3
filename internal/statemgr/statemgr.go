// Package statemgr owns the contracts for where state lives: locking,
// reading and conditionally writing the state, the append-only journal of
// finished changes, backups, and named objects (saved plans, audit records),
// and the conditional writes on named objects that other records several
// processes share are made of (Conditional, conditional.go; package claim).
// Implementations: local/ (files), objstore/ (any object store) with s3/
// and gcs/ as its stores, spaces/ (S3 on DigitalOcean) and httpstate/
// (Terraform's HTTP backend protocol); statemgrtest/ is the conformance
// suite every implementation must pass, in clear and through a Codec
// (codec.go; crypt/ implements it). What they all share lives here too: the
// heartbeat and wait of a lock (heartbeat.go, lockwait.go, lockinfo.go), the
// takeover of a lock whose holder is known gone (takeover.go), and
// how a state to write is checked, a journal entry decoded, a backup named
// and an object key accepted (files.go). Implementations are safe for
// concurrent use by the goroutines of one process, and for several processes
// sharing one store (that is what the lock is for).
package statemgr

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kyku/action/internal/state"
)

// ErrNotFound is returned (wrapped) by GetObject / ReadBackup for a missing key.
var ErrNotFound = errors.New("not found")

// ErrConflict is returned (wrapped) by Write when the stored state changed
// since it was read (another writer), or when the written state's lineage
// differs or its serial does not rise.
var ErrConflict = errors.New("state conflict")

// ErrPredates is wrapped when a location's objects are to be moved to
// another owner's (a bot's namespace keyed by a repository's ID) and one
// of them was written before that owner existed: they are someone
// else's, and nothing is moved.
var ErrPredates = errors.New("an object there predates its new owner")

// LockInfo says who holds a lock and why. It is the lock's body.
type LockInfo struct {
	ID        string    `json:"id"` // random token
	Operation string    `json:"operation"`
	Who       string    `json:"who"` // user@host
	Actor     string    `json:"actor,omitempty"`
	RunURL    string    `json:"runUrl,omitempty"`
	Host      string    `json:"host,omitempty"`
	PID       int       `json:"pid,omitempty"`
	Created   time.Time `json:"created"`
	Heartbeat time.Time `json:"heartbeat"` // refreshed while held
	Path      string    `json:"path,omitempty"`
	// Process tells, on the holder's own host, whether it still runs
	// (local backend; see Process).
	Process Process `json:"process,omitzero"`
	// Job is the bot's durable job the lock was taken for (see Successor).
	Job LockJob `json:"job,omitzero"`
}

// LockedError is returned when a lock could not be acquired in time.
type LockedError struct {
	Holder LockInfo
	Err    error // underlying cause, when not plain contention
}

func (e *LockedError) Error() string {
	h := e.Holder
	msg := fmt.Sprintf("state is locked by %s (operation %q, token %s, pid %d, since %s",
		orUnknown(h.Who), h.Operation, h.ID, h.PID, h.Created.UTC().Format(time.RFC3339))
	if h.Job.ID != "" {
		msg += ", job " + h.Job.ID
	}
	if h.RunURL != "" {
		msg += ", run " + h.RunURL
	}
	msg += "); wait for it to finish, or if it is dead run: kyku force-unlock " + h.ID
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *LockedError) Unwrap() error { return e.Err }

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// Lock is a held lock. The implementation refreshes its heartbeat until
// Unlock. Unlock must be called on every path (defer it with
// context.WithoutCancel).
type Lock interface {
	Info() LockInfo
	Unlock(ctx context.Context) error
}

// Locker acquires the state lock, waiting up to the implementation's
// timeout; on timeout it returns a *LockedError naming the holder.
type Locker interface {
	Lock(ctx context.Context, info LockInfo) (Lock, error)
	// ForceUnlock removes the lock if its token is id.
	ForceUnlock(ctx context.Context, id string) error
}

// WriteOptions relax Write's checks (kyku state push --force).
type WriteOptions struct {
	Force bool
}

// Store reads and writes the state of one environment.
type Store interface {
	// Read returns the state, or (nil, nil) when there is none yet.
	// Corrupt data is an error wrapping state.ErrCorrupt, and is never
	// overwritten by Write.
	Read(ctx context.Context) (*state.File, error)
	// Write stores f. Unless forced it is refused with ErrConflict when the
	// stored state changed since the last Read (ETag or equivalent), when f's
	// lineage differs from the stored one, or when f's serial is not greater.
	Write(ctx context.Context, f *state.File, opts WriteOptions) error
}

// Journal is the append-only log of finished changes beside the state.
// Append costs O(size of the entry) and is durable when it returns.
type Journal interface {
	Append(ctx context.Context, e state.Entry) error
	Entries(ctx context.Context) ([]state.Entry, error)
	ClearJournal(ctx context.Context) error
}

// BackupInfo describes one backup.
type BackupInfo struct {
	Key     string    `json:"key"`
	Serial  int64     `json:"serial"`
	Created time.Time `json:"created"`
}

// Backups keeps timestamped copies of previous states.
type Backups interface {
	// Backup stores f and returns its key; older backups beyond the
	// retention are removed.
	Backup(ctx context.Context, f *state.File) (string, error)
	ListBackups(ctx context.Context) ([]BackupInfo, error) // newest first
	ReadBackup(ctx context.Context, key string) (*state.File, error)
}

// Objects stores named blobs under the backend's prefix: saved plans
// ("plans/<env>/<name>.json") and audit records ("runs/<env>/…").
type Objects interface {
	PutObject(ctx context.Context, key string, data []byte) error
	GetObject(ctx context.Context, key string) ([]byte, error)
	ListObjects(ctx context.Context, prefix string) ([]string, error)
}

// Backend is everything the engine needs from where state lives.
type Backend interface {
	Locker
	Store
	Journal
	Backups
	Objects
	// Describe names the backend and location for messages ("local .kyku-state/state.prod.json").
	Describe() string
}

// AnswerBox keeps the answers a journal keeper (package tfplugin) wrote
// of the creates whose intents the journal holds (state.Answer), where
// the keeper, a process on this machine, can write them: a local
// backend's directory.
type AnswerBox interface {
	// AnswerPath is the file the answer to the create of address goes to.
	AnswerPath(address string) string
	// Note writes a (neither asked nor answered yet) at its address's
	// path, with its Note (state.Answer.Note), or one of its own making
	// when it has none, whole or not at all, without waiting for the
	// disk: it outlives the process, which is what it is for.
	Note(ctx context.Context, a state.Answer) error
	// Answers are the answers kept, by name (state.AnswerName).
	Answers(ctx context.Context) (map[string][]byte, error)
	RemoveAnswer(ctx context.Context, name string) error
	// ClearNotes removes what a killed apply's Note left half written,
	// and what its keepers logged that no answer left needs;
	// only under the whole state's lock (no apply writes notes then).
	ClearNotes(ctx context.Context) error
	// ReleaseNotes lets go of what this process keeps to write notes
	// with, once no create it noted is in flight (the notes left stay).
	ReleaseNotes(ctx context.Context) error
	// LockNotes locks the notes named (by state.AnswerName) against a
	// journal keeper making their creates, waiting up to wait for one
	// that holds a note (negative: not at all; then a *NoteHeldError),
	// and returns them as read under the locks (a note gone since is
	// absent) with the func that lets go of the locks: only under the
	// whole state's lock, held until the notes closed are removed.
	LockNotes(ctx context.Context, names []string, wait time.Duration) (map[string][]byte, func(), error)
}

// NoteHeldError is LockNotes' refusal of a note a journal keeper (of an
// earlier apply: it survives the apply's kill) holds while it makes its
// create, past the wait.
type NoteHeldError struct {
	Name string // the note's name (state.AnswerName)
}

func (e *NoteHeldError) Error() string {
	return "the note " + e.Name + " is held by a journal keeper making its create"
}

// Identified is a backend (or a Terraform state's slot) whose Describe
// leaves out what tells two of its states apart (an http address's query,
// redacted): Identity names the state wholly, for a hash that is never
// shown (the answer box this machine keeps for a remote state).
type Identified interface {
	Identity() string
}

// AnswerKeeper is a backend that may keep answers: AnswerBox is nil when
// it does not.
type AnswerKeeper interface {
	AnswerBox() AnswerBox
}
