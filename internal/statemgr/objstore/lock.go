package objstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kyku/action/internal/statemgr"
)

// observed is one read of the lock object.
type observed struct {
	info    statemgr.LockInfo
	version Version
	corrupt bool      // not a lock body with a token
	beat    time.Time // last sign of life: the later of heartbeat and Modified
}

// Lock creates the lock object only if absent, waiting up to
// Options.LockTimeout and polling every Options.PollInterval. A lock whose
// last sign of life (the later of its heartbeat and the object's Modified,
// so a holder whose clock runs behind is not broken early) is older than
// Options.StaleAfter is broken when a re-read still shows the same lock, by
// overwriting it with ours conditionally on the version read, so two
// breakers cannot both win; so, at once, is a lock ctx's Successor
// inherits (statemgr.Inherits), and ctx's LockTakenOver hook is told. On
// timeout it returns a *statemgr.LockedError
// naming the holder; when ctx ends first, one that wraps ctx.Err(). The
// returned Lock also has a method Lost() error, non-nil (wrapping
// statemgr.ErrLockLost) once its heartbeat found the lock taken away.
func (b *Backend) Lock(ctx context.Context, info statemgr.LockInfo) (statemgr.Lock, error) {
	info = statemgr.ForRun(ctx, info.WithDefaults(b.opts.Hostname, b.opts.PID))
	info.Path = b.url(b.lockKey())
	if b.cfg.Unlocked {
		now := b.opts.Now().UTC()
		info.Created, info.Heartbeat = now, now
		return &unlockedLock{info: info}, nil
	}

	wait := statemgr.NewLockWait(b.opts.LockTimeout, b.opts.PollInterval, true)
	defer wait.Stop()
	// The calls' context tells the bucket when the wait ends: network
	// errors are retried until then.
	callCtx := ctx
	until, waits := wait.Ends()
	if waits {
		callCtx = context.WithValue(ctx, lockWaitKey{}, until)
	}

	key := b.lockKey()
	var last *observed
	for {
		if err := ctx.Err(); err != nil {
			return nil, b.lockedError(last, err)
		}
		// Stamp each attempt: the lock must not look older than it is to
		// others when we get it after a long wait.
		now := b.opts.Now().UTC()
		info.Created, info.Heartbeat = now, now
		body, err := json.Marshal(info)
		if err != nil {
			return nil, b.errorf("encode lock: %w", err)
		}
		v, err := b.bucket.Put(callCtx, key, body, Cond{IfAbsent: true})
		if err == nil {
			return b.hold(info, v), nil
		}
		if !isPrecondition(err) {
			if ctx.Err() != nil {
				return nil, b.lockedError(last, ctx.Err())
			}
			if last != nil && waits && time.Now().After(until) {
				return nil, b.lockedError(last, b.wrap("acquire lock", key, err))
			}
			return nil, b.wrap("acquire lock", key, err)
		}
		// Taken: by another run, or by our own put whose answer was lost.
		obs, err := b.readLock(callCtx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, b.lockedError(last, ctx.Err())
			}
			return nil, err
		}
		if obs == nil {
			continue // released between our put and the read: try again now
		}
		if obs.info.ID == info.ID {
			// Our own put landed although its answer was lost (a retry then
			// saw our lock): it is ours.
			return b.hold(obs.info, obs.version), nil
		}
		last = obs
		inherit := !obs.corrupt && statemgr.Inherits(ctx, obs.info)
		if inherit || b.isStale(obs) {
			now := b.opts.Now().UTC()
			info.Created, info.Heartbeat = now, now
			if body, err = json.Marshal(info); err != nil {
				return nil, b.errorf("encode lock: %w", err)
			}
			// A stale lock must still be stale on the re-read; an
			// inherited one need only still be the same lock (its holder
			// may beat on, not knowing it lost its job).
			still := func(again *observed) bool {
				return again.version == obs.version && again.info.ID == obs.info.ID && b.isStale(again)
			}
			if inherit {
				still = func(again *observed) bool { return !again.corrupt && again.info.ID == obs.info.ID }
			}
			v, err := b.takeOver(callCtx, still, body)
			if err != nil {
				return nil, err
			}
			if v != "" {
				if inherit {
					statemgr.TellTakenOver(ctx, obs.info, statemgr.JobResumed)
				}
				return b.hold(info, v), nil
			}
			continue // it changed: look again at once
		}
		holder := obs.info
		if obs.corrupt {
			holder = statemgr.LockInfo{Path: b.url(key), Created: obs.beat}
		}
		if again, cause := wait.Wait(ctx, &holder); !again {
			return nil, b.lockedError(last, cause)
		}
	}
}

// takeOver replaces a lock with ours, only if a re-read still shows one
// still accepts: a put conditional on the version re-read, so of two
// breakers only one can win, and there is no instant without a lock for a
// third run to slip into. It returns our lock's version when we took it,
// "" when the lock changed meanwhile (refreshed, released or taken by
// another).
//
// An overwrite rather than a delete: a conditional delete followed by a
// conditional create has a window in which another breaker's delete
// (checked against the same old version by a server that does not
// serialize the check and the delete, as versitygw's posix backend does
// not) removes the new lock; a conditional put is serialized with the other
// conditional puts.
func (b *Backend) takeOver(ctx context.Context, still func(again *observed) bool, body []byte) (Version, error) {
	again, err := b.readLock(ctx)
	if err != nil || again == nil {
		return "", err
	}
	if !still(again) {
		return "", nil // refreshed or replaced meanwhile
	}
	v, err := b.bucket.Put(ctx, b.lockKey(), body, Cond{IfMatch: again.version})
	switch {
	case err == nil:
		return v, nil
	case isPrecondition(err), isNotFound(err):
		return "", nil // someone else broke, released or refreshed it first
	}
	return "", b.wrap("break stale lock", b.lockKey(), err)
}

// ForceUnlock removes the lock if its token is id, with a delete
// conditional on the version read. It refuses when the lock belongs to
// another token, describing the holder but not its token.
func (b *Backend) ForceUnlock(ctx context.Context, id string) error {
	key := b.lockKey()
	if b.cfg.Unlocked {
		return fmt.Errorf("force-unlock %s: the backend runs without a lock (lock: false); there is nothing to remove", id)
	}
	obs, err := b.readLock(ctx)
	if err != nil {
		return fmt.Errorf("force-unlock %s: %w", id, err)
	}
	if obs == nil {
		return fmt.Errorf("force-unlock %s: no lock is held at %s", id, b.url(key))
	}
	// A live holder refreshes the lock (new version, same token) between
	// our read and our delete: retry while the token is still id.
	for attempt := 0; ; attempt++ {
		if obs.corrupt {
			return fmt.Errorf("force-unlock %s: %s is not a valid lock; if no kyku is running, delete it by hand", id, b.url(key))
		}
		if obs.info.ID != id {
			return fmt.Errorf("force-unlock %s: %w (held by %s)", id, statemgr.ErrWrongToken, obs.info.Describe())
		}
		_, err = b.bucket.Delete(ctx, key, obs.version)
		switch {
		case err == nil, isNotFound(err):
			return nil
		case !isPrecondition(err):
			return fmt.Errorf("force-unlock %s: %w", id, b.wrap("delete lock", key, err))
		case attempt == 4:
			return fmt.Errorf("force-unlock %s: the lock kept changing while we deleted it; try again", id)
		}
		if obs, err = b.readLock(ctx); err != nil {
			return fmt.Errorf("force-unlock %s: %w", id, err)
		}
		if obs == nil {
			return nil // released meanwhile
		}
	}
}

func (b *Backend) lockedError(last *observed, cause error) error {
	if last == nil {
		if cause != nil {
			return b.errorf("acquire lock %s: %w", b.url(b.lockKey()), cause)
		}
		return b.errorf("acquire lock %s: timed out", b.url(b.lockKey()))
	}
	if last.corrupt {
		return statemgr.CorruptLockError(b.url(b.lockKey()), last.beat, cause, fmt.Errorf(
			"lock object %s is not a valid lock; it is broken once older than %s, or delete it by hand if no kyku is running", b.url(b.lockKey()), b.opts.StaleAfter))
	}
	return &statemgr.LockedError{Holder: last.info, Err: cause}
}

func (b *Backend) isStale(o *observed) bool {
	return b.opts.Now().Sub(o.beat) > b.opts.StaleAfter
}

// readLock reads the lock object, or returns nil when there is none. A body
// that is not a lock is corrupt; its Modified stands for its heartbeat.
func (b *Backend) readLock(ctx context.Context) (*observed, error) {
	o, err := b.bucket.Get(ctx, b.lockKey())
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, b.wrap("read lock", b.lockKey(), err)
	}
	obs := &observed{version: o.Version, beat: o.Modified}
	if err := json.Unmarshal(o.Data, &obs.info); err != nil || obs.info.ID == "" {
		obs.info, obs.corrupt = statemgr.LockInfo{}, true
		return obs, nil
	}
	// The later of the holder's clock and the server's: a holder whose clock
	// runs behind is not broken early.
	beat := obs.info.Heartbeat
	if beat.IsZero() {
		beat = obs.info.Created
	}
	if beat.After(obs.beat) {
		obs.beat = beat
	}
	return obs, nil
}

// heldLock is a lock this process holds; a heartbeat refreshes it
// (conditionally on its version) until Unlock.
type heldLock struct {
	b  *Backend
	hb *statemgr.Heartbeat

	mu      sync.Mutex
	info    statemgr.LockInfo
	version Version // of the lock object as we last wrote it

	once      sync.Once
	unlockErr error
}

func (b *Backend) hold(info statemgr.LockInfo, v Version) *heldLock {
	h := &heldLock{b: b, info: info, version: v}
	h.hb = statemgr.StartHeartbeat(b.opts.Heartbeat, h.beat, func(err error) bool { return errors.Is(err, statemgr.ErrLockLost) })
	return h
}

// Info returns the lock's body as last written (with its latest heartbeat).
func (h *heldLock) Info() statemgr.LockInfo {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.info
}

// Lost returns an error wrapping statemgr.ErrLockLost once the heartbeat
// found the lock taken from us, else nil.
func (h *heldLock) Lost() error { return h.hb.Lost() }

// beat rewrites the lock with a fresh heartbeat, conditional on its
// version. ctx ends when Unlock stops the heartbeat.
func (h *heldLock) beat(ctx context.Context) error {
	h.mu.Lock()
	info, v := h.info, h.version
	h.mu.Unlock()
	info.Heartbeat = h.b.opts.Now().UTC()
	body, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("encode lock: %w", err)
	}
	// The heartbeat must not hang past a couple of periods.
	ctx, cancel := context.WithTimeout(ctx, 2*h.b.opts.Heartbeat)
	defer cancel()
	key := h.b.lockKey()
	newV, err := h.b.bucket.Put(ctx, key, body, Cond{IfMatch: v})
	if err != nil && (isPrecondition(err) || isNotFound(err)) {
		// Either the lock was taken from us, or an earlier attempt of ours
		// (cancelled, or retried) landed: only our token tells.
		if obs, rerr := h.b.readLock(ctx); rerr == nil && (obs == nil || obs.info.ID != info.ID) {
			return fmt.Errorf("%w: %s no longer holds token %s (broken as stale or force-unlocked)", statemgr.ErrLockLost, h.b.url(key), info.ID)
		} else if rerr == nil {
			info, newV, err = obs.info, obs.version, nil
		}
	}
	if err != nil {
		return h.b.wrap("refresh lock heartbeat", key, err)
	}
	h.mu.Lock()
	h.info, h.version = info, newV
	h.mu.Unlock()
	return nil
}

// Unlock stops the heartbeat and deletes the lock object conditionally on
// the version we last wrote. It reports statemgr.ErrLockLost when the lock
// was taken from us meanwhile. It is safe to call more than once; later
// calls return the first call's result.
func (h *heldLock) Unlock(ctx context.Context) error {
	h.once.Do(func() {
		lost := h.hb.Stop()
		key := h.b.lockKey()
		h.mu.Lock()
		v, id := h.version, h.info.ID
		h.mu.Unlock()
		if lost != nil {
			h.unlockErr = h.b.errorf("release lock: %w", lost)
			return
		}
		ambiguous, err := h.b.bucket.Delete(ctx, key, v)
		if isPrecondition(err) || isNotFound(err) {
			// A heartbeat cut short by Unlock may have landed after all
			// (then the lock carries our token under another version), or
			// an attempt of this delete landed although its answer was lost
			// (then the lock is gone).
			obs, rerr := h.b.readLock(ctx)
			switch {
			case rerr != nil:
			case obs != nil && obs.info.ID == id:
				ambiguous, err = h.b.bucket.Delete(ctx, key, obs.version)
				if err != nil && ambiguous && isNotFound(err) {
					err = nil
				}
			case obs == nil && ambiguous:
				err = nil
			}
		}
		switch {
		case err == nil:
		case isPrecondition(err) || isNotFound(err):
			h.unlockErr = h.b.errorf("release lock %s: %w: token %s was broken or force-unlocked while held", h.b.url(key), statemgr.ErrLockLost, id)
		default:
			h.unlockErr = h.b.wrap("release lock", key, err)
		}
	})
	return h.unlockErr
}

// unlockedLock is what Lock returns for an Unlocked backend: nothing is
// stored, nothing is refreshed.
type unlockedLock struct{ info statemgr.LockInfo }

func (l *unlockedLock) Info() statemgr.LockInfo      { return l.info }
func (l *unlockedLock) Unlock(context.Context) error { return nil }
