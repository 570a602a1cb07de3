package local

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kyku/action/internal/durable"
	"github.com/kyku/action/internal/statemgr"
	"golang.org/x/sys/unix"
)

// errLockLost is wrapped when a held lock's file no longer carries our
// token; it wraps statemgr.ErrLockLost.
var errLockLost = fmt.Errorf("state %w", statemgr.ErrLockLost)

// observed is what a reader found in the lock file.
type observed struct {
	raw     []byte
	info    statemgr.LockInfo
	corrupt bool      // not a lock body with a token
	beat    time.Time // last sign of life: heartbeat, else created, else mtime
}

// Lock acquires the directory's lock file, waiting up to Options.LockTimeout
// (polling every Options.PollInterval). A lock whose heartbeat is older than
// Options.StaleAfter is broken when a re-read still shows the same lock; so,
// at once, is one whose holder is known to be gone (see leftBehind), and
// ctx's LockTakenOver hook is told. The lock records this process's
// identity (Options.Proc) when info's PID is this process's. On
// timeout it returns a *statemgr.LockedError naming the holder; when ctx ends
// first, a *statemgr.LockedError wrapping ctx.Err(). The lock file needs
// the directory: Lock creates it when missing, and Unlock removes what Lock
// created once it is empty again, so a run that wrote nothing (a plan)
// leaves nothing behind.
func (b *Backend) Lock(ctx context.Context, info statemgr.LockInfo) (statemgr.Lock, error) {
	now := b.opts.Now().UTC()
	info = b.proc.stamp(statemgr.ForRun(ctx, info.WithDefaults(b.opts.Hostname, b.opts.PID)))
	info.Created, info.Heartbeat = now, now
	info.Path = b.lockPath()
	body, err := encodeLock(info)
	if err != nil {
		return nil, err
	}
	created, err := makeDirs(b.dir)
	if err != nil {
		return nil, fmt.Errorf("acquire state lock: create directory: %w", err)
	}

	wait := statemgr.NewLockWait(b.opts.LockTimeout, b.opts.PollInterval, false)
	defer wait.Stop()

	var last *observed
	for {
		if err := ctx.Err(); err != nil {
			return nil, b.lockedError(last, err)
		}
		ok, err := b.tryCreate(body)
		if errors.Is(err, fs.ErrNotExist) {
			// Another run's Unlock removed the directory it had created,
			// empty, just now: make it again (and remove it when done).
			again, err := makeDirs(b.dir)
			if err != nil {
				return nil, fmt.Errorf("acquire state lock: create directory: %w", err)
			}
			created = append(again, created...)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("acquire state lock %s: %w", b.lockPath(), err)
		}
		if ok {
			return b.hold(info, created), nil
		}
		obs, err := b.readLock()
		if err != nil {
			return nil, fmt.Errorf("acquire state lock: %w", err)
		}
		if obs == nil {
			continue // released between our attempt and the read: try again now
		}
		last = obs
		why, left := b.leftBehind(ctx, obs)
		if left || b.isStale(obs) {
			broke, err := b.takeIf(func(raw []byte) bool { return bytes.Equal(raw, obs.raw) })
			if err != nil {
				return nil, fmt.Errorf("break stale state lock: %w", err)
			}
			if broke {
				if left {
					statemgr.TellTakenOver(ctx, obs.info, why)
				}
				continue
			}
		}
		holder := obs.info
		if obs.corrupt {
			holder = statemgr.LockInfo{Path: b.lockPath(), Created: obs.beat}
		}
		if again, cause := wait.Wait(ctx, &holder); !again {
			return nil, b.lockedError(last, cause)
		}
	}
}

// ForceUnlock removes the lock if its token is id. It refuses when the
// lock belongs to another token, describing the holder but not its token.
func (b *Backend) ForceUnlock(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("force-unlock: %w", err)
	}
	obs, err := b.readLock()
	if err != nil {
		return fmt.Errorf("force-unlock: %w", err)
	}
	if obs == nil {
		return fmt.Errorf("force-unlock %s: no lock is held", id)
	}
	if obs.corrupt {
		return fmt.Errorf("force-unlock %s: lock file %s is not a valid lock; if no kyku is running, remove it by hand", id, b.lockPath())
	}
	if obs.info.ID != id {
		return fmt.Errorf("force-unlock %s: %w (held by %s)", id, statemgr.ErrWrongToken, obs.info.Describe())
	}
	taken, err := b.takeIf(func(raw []byte) bool { return tokenOf(raw) == id })
	if err != nil {
		return fmt.Errorf("force-unlock %s: %w", id, err)
	}
	if !taken {
		if now, _ := b.readLock(); now != nil {
			return fmt.Errorf("force-unlock %s: the lock changed meanwhile: %w (held by %s)", id, statemgr.ErrWrongToken, now.info.Describe())
		}
	}
	return nil
}

func (b *Backend) lockedError(last *observed, cause error) error {
	if last == nil {
		if cause != nil {
			return fmt.Errorf("acquire state lock: %w", cause)
		}
		return fmt.Errorf("acquire state lock %s: timed out", b.lockPath())
	}
	if last.corrupt {
		return statemgr.CorruptLockError(b.lockPath(), last.beat, cause, fmt.Errorf(
			"lock file %s is not a valid lock; it is broken once older than %s, or remove it by hand if no kyku is running", b.lockPath(), b.opts.StaleAfter))
	}
	return &statemgr.LockedError{Holder: last.info, Err: cause}
}

func (b *Backend) isStale(o *observed) bool {
	return b.opts.Now().Sub(o.beat) > b.opts.StaleAfter
}

// leftBehind reports whether o's holder is known to be gone, and why: its
// process no longer runs on this host, or ctx's Successor carries on its
// work. Another host's lock, a live process's, and one that is not a lock
// are not.
func (b *Backend) leftBehind(ctx context.Context, o *observed) (statemgr.TakeoverReason, bool) {
	switch {
	case o.corrupt:
		return 0, false
	case b.proc.gone(o.info):
		return statemgr.ProcessGone, true
	case statemgr.Inherits(ctx, o.info):
		return statemgr.JobResumed, true
	}
	return 0, false
}

// guarded runs fn holding an exclusive flock on the state directory, so
// that lock-file changes (create, take, heartbeat rewrite) never interleave
// between processes: takeIf moves the lock aside to check it and puts it
// back, and a create slipping into that instant would leave two holders.
// The kernel drops the flock when its holder dies.
func (b *Backend) guarded(fn func() error) error {
	d, err := os.Open(b.dir)
	if err != nil {
		return fmt.Errorf("open state directory %s: %w", b.dir, err)
	}
	defer d.Close()
	for {
		err = unix.Flock(int(d.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("lock state directory %s: %w", b.dir, err)
	}
	defer unix.Flock(int(d.Fd()), unix.LOCK_UN)
	return fn()
}

// tryCreate creates the lock file exclusively; false when it exists.
func (b *Backend) tryCreate(body []byte) (created bool, err error) {
	err = b.guarded(func() error {
		created, err = b.create(body)
		return err
	})
	return created, err
}

func (b *Backend) create(body []byte) (bool, error) {
	f, err := os.OpenFile(b.lockPath(), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, werr := f.Write(body)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(b.lockPath())
		return false, fmt.Errorf("write lock: %w", werr)
	}
	return true, durable.SyncDir(b.dir)
}

// readLock returns the lock file's content, or nil when there is none. A
// body that is not a lock (empty, torn, foreign) is corrupt, and its mtime
// stands for its heartbeat.
func (b *Backend) readLock() (*observed, error) {
	f, err := os.Open(b.lockPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read lock: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read lock: %w", err)
	}
	raw, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read lock: %w", err)
	}
	o := &observed{raw: raw, beat: st.ModTime()}
	if err := json.Unmarshal(raw, &o.info); err != nil || o.info.ID == "" {
		o.info, o.corrupt = statemgr.LockInfo{}, true
		return o, nil
	}
	switch {
	case !o.info.Heartbeat.IsZero():
		o.beat = o.info.Heartbeat
	case !o.info.Created.IsZero():
		o.beat = o.info.Created
	}
	return o, nil
}

// takeIf removes the lock file only if match accepts its content, safely
// against others doing the same: the file is first renamed to a name of our
// own (atomic, so only one taker gets any given file), then checked. When it
// is not the lock we meant (it changed, or a new lock replaced a broken one
// meanwhile), it is put back with os.Link. All of it runs guarded, so no
// other process creates a lock in the instant it is away.
func (b *Backend) takeIf(match func(raw []byte) bool) (taken bool, err error) {
	err = b.guarded(func() error {
		taken, err = b.take(match)
		return err
	})
	return taken, err
}

func (b *Backend) take(match func(raw []byte) bool) (bool, error) {
	aside := b.lockPath() + ".take-" + randomHex(8)
	if err := os.Rename(b.lockPath(), aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("move lock aside: %w", err)
	}
	raw, err := os.ReadFile(aside)
	if err == nil && match(raw) {
		if err := os.Remove(aside); err != nil {
			return false, fmt.Errorf("remove lock: %w", err)
		}
		return true, durable.SyncDir(b.dir)
	}
	if err := os.Link(aside, b.lockPath()); err != nil && !errors.Is(err, fs.ErrExist) {
		return false, fmt.Errorf("put lock back: %w", err)
	}
	_ = os.Remove(aside)
	return false, nil
}

func tokenOf(raw []byte) string {
	var info statemgr.LockInfo
	if json.Unmarshal(raw, &info) != nil {
		return ""
	}
	return info.ID
}

func encodeLock(info statemgr.LockInfo) ([]byte, error) {
	body, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode lock: %w", err)
	}
	return append(body, '\n'), nil
}

// heldLock is a lock this process holds; a goroutine refreshes its
// heartbeat until Unlock.
type heldLock struct {
	b       *Backend
	id      string   // our token; never changes
	created []string // directories Lock created, deepest first
	hb      *statemgr.Heartbeat

	mu   sync.Mutex
	info statemgr.LockInfo

	once      sync.Once
	unlockErr error
}

func (b *Backend) hold(info statemgr.LockInfo, created []string) *heldLock {
	h := &heldLock{b: b, id: info.ID, info: info, created: created}
	h.hb = statemgr.StartHeartbeat(b.opts.Heartbeat, h.beat, func(err error) bool { return errors.Is(err, errLockLost) })
	return h
}

// Info returns the lock's body as last written (with its latest heartbeat).
func (h *heldLock) Info() statemgr.LockInfo {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.info
}

// beat rewrites the lock with a fresh heartbeat, only while it is still ours.
func (h *heldLock) beat(context.Context) error {
	return h.b.guarded(h.rewrite)
}

func (h *heldLock) rewrite() error {
	obs, err := h.b.readLock()
	if err != nil {
		return err
	}
	if obs == nil || obs.info.ID != h.id {
		return fmt.Errorf("%w: %s no longer holds token %s", errLockLost, h.b.lockPath(), h.id)
	}
	h.mu.Lock()
	info := h.info
	h.mu.Unlock()
	info.Heartbeat = h.b.opts.Now().UTC()
	body, err := encodeLock(info)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(h.b.lockPath(), body); err != nil {
		return fmt.Errorf("refresh lock heartbeat: %w", err)
	}
	h.mu.Lock()
	h.info = info
	h.mu.Unlock()
	return nil
}

// Unlock stops the heartbeat and removes the lock file if it still carries
// our token. It is safe to call more than once; later calls return the
// first call's result.
func (h *heldLock) Unlock(ctx context.Context) error {
	h.once.Do(func() {
		_ = h.hb.Stop() // a lost lock shows below: it no longer carries our token
		id := h.id
		taken, err := h.b.takeIf(func(raw []byte) bool { return tokenOf(raw) == id })
		switch {
		case err != nil:
			h.unlockErr = fmt.Errorf("release state lock %s: %w", h.b.lockPath(), err)
		case !taken:
			h.unlockErr = fmt.Errorf("release state lock %s: %w: token %s was broken or force-unlocked while held", h.b.lockPath(), errLockLost, id)
		}
		// Only an empty directory is removed (rmdir refuses any other): one
		// that now holds state, or another run's lock, stays.
		for _, d := range h.created {
			if os.Remove(d) != nil {
				break
			}
		}
	})
	return h.unlockErr
}

// makeDirs creates dir and its missing parents and returns the ones it
// created, deepest first.
// mkdirAll is os.MkdirAll (a test's, to race another run's Unlock).
var mkdirAll = os.MkdirAll

func makeDirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	// Another run's Unlock may remove, empty, a directory of the path
	// this one just made (its own, made for its lock): make it again.
	var err error
	for range 8 {
		if err = mkdirAll(dir, 0o755); !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	return missing, nil
}
