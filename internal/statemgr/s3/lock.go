package s3

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"sync"
	"time"

	"github.com/kyku/action/internal/statemgr"
)

// observed is one read of the lock object.
type observed struct {
	info    statemgr.LockInfo
	etag    string
	corrupt bool      // not a lock body with a token
	beat    time.Time // last sign of life: the later of heartbeat and LastModified
}

// Lock acquires the lock object with a conditional put (If-None-Match: *),
// waiting up to Options.LockTimeout and polling every Options.PollInterval.
// A lock whose last sign of life (the later of its heartbeat and the
// object's LastModified, so a holder whose clock runs behind is not broken
// early) is older than Options.StaleAfter is broken when a re-read still
// shows the same lock, by overwriting it with ours conditionally on the ETag
// read, so two breakers cannot both win. On timeout it returns a
// *statemgr.LockedError naming the holder; when ctx ends first, one that
// wraps ctx.Err(). The returned Lock also has a method Lost() error, non-nil
// (wrapping ErrLockLost) once its heartbeat found the lock taken away.
func (b *Backend) Lock(ctx context.Context, info statemgr.LockInfo) (statemgr.Lock, error) {
	if info.ID == "" {
		info.ID = randomToken()
	}
	if info.PID == 0 {
		info.PID = b.opts.PID
	}
	if info.Host == "" {
		info.Host = b.opts.Hostname
	}
	info.Path = b.url(b.lockKey())
	if b.cfg.Unlocked {
		now := b.opts.Now().UTC()
		info.Created, info.Heartbeat = now, now
		return &unlockedLock{info: info}, nil
	}

	var deadline <-chan time.Time
	var until time.Time // when the wait ends: network errors are retried until then
	if b.opts.LockTimeout > 0 {
		t := time.NewTimer(b.opts.LockTimeout)
		defer t.Stop()
		deadline = t.C
		until = time.Now().Add(b.opts.LockTimeout)
	}
	octx := ctx
	budget := func() context.Context {
		if until.IsZero() {
			return octx
		}
		// At least one whole attempt, however close the deadline.
		return withBudget(octx, max(time.Until(until), b.opts.AttemptTimeout))
	}
	poll := time.NewTimer(time.Hour)
	defer poll.Stop()

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
			return nil, fmt.Errorf("s3 backend: encode lock: %w", err)
		}
		etag, err := b.put(budget(), key, body, cond{absent: true})
		if err == nil {
			return b.hold(info, etag), nil
		}
		if !isPreconditionFailed(err) {
			if ctx.Err() != nil {
				return nil, b.lockedError(last, ctx.Err())
			}
			if last != nil && !until.IsZero() && time.Now().After(until) {
				return nil, b.lockedError(last, b.wrap("acquire lock", key, err))
			}
			return nil, b.wrap("acquire lock", key, err)
		}
		// Taken: by another run, or by our own put whose answer was lost.
		obs, err := b.readLock(budget())
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
			// Our own put landed although its answer was lost (an SDK retry
			// then saw our lock): it is ours.
			return b.hold(obs.info, obs.etag), nil
		}
		last = obs
		if b.isStale(obs) {
			now := b.opts.Now().UTC()
			info.Created, info.Heartbeat = now, now
			if body, err = json.Marshal(info); err != nil {
				return nil, fmt.Errorf("s3 backend: encode lock: %w", err)
			}
			etag, err := b.takeStale(budget(), obs, body)
			if err != nil {
				return nil, err
			}
			if etag != "" {
				return b.hold(info, etag), nil
			}
			continue // it changed: look again at once
		}
		if deadline == nil {
			return nil, b.lockedError(last, nil)
		}
		poll.Reset(jitter(b.opts.PollInterval))
		select {
		case <-ctx.Done():
			return nil, b.lockedError(last, ctx.Err())
		case <-deadline:
			return nil, b.lockedError(last, nil)
		case <-poll.C:
		}
	}
}

// takeStale replaces a stale lock with ours, only if a re-read still shows
// the same object: a put conditional on the ETag read (If-Match), so of two
// breakers only one can win, and there is no instant without a lock for a
// third run to slip into. It returns our lock's ETag when we took it, ""
// when the lock changed meanwhile (refreshed, released or taken by another).
//
// An overwrite rather than a delete: a conditional delete followed by a
// conditional create has a window in which another breaker's delete (checked
// against the same old ETag by a server that does not serialize the check
// and the delete, as versitygw's posix backend does not) removes the new
// lock; an If-Match put is serialized with the other conditional puts.
func (b *Backend) takeStale(ctx context.Context, stale *observed, body []byte) (string, error) {
	again, err := b.readLock(ctx)
	if err != nil || again == nil {
		return "", err
	}
	if again.etag != stale.etag || again.info.ID != stale.info.ID || !b.isStale(again) {
		return "", nil // refreshed or replaced meanwhile
	}
	etag, err := b.put(ctx, b.lockKey(), body, cond{ifMatch: again.etag})
	switch {
	case err == nil:
		return etag, nil
	case isPreconditionFailed(err), isNotFound(err):
		return "", nil // someone else broke, released or refreshed it first
	}
	return "", b.wrap("break stale lock", b.lockKey(), err)
}

// ForceUnlock removes the lock if its token is id, with a delete
// conditional on the ETag read. It refuses, naming the actual holder, when
// the lock belongs to another token.
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
	if obs.corrupt {
		return fmt.Errorf("force-unlock %s: %s is not a valid lock; if no kyku is running, delete it by hand", id, b.url(key))
	}
	// A live holder refreshes the lock (new ETag, same token) between our
	// read and our delete: retry while the token is still id.
	for attempt := 0; ; attempt++ {
		if obs.info.ID != id {
			return fmt.Errorf("force-unlock %s: the lock is held by token %s (%s), not %s", id, obs.info.ID, describeHolder(obs.info), id)
		}
		_, err = b.deleteIfMatch(ctx, key, obs.etag)
		switch {
		case err == nil, isNotFound(err):
			return nil
		case !isPreconditionFailed(err):
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
		if obs.corrupt {
			return fmt.Errorf("force-unlock %s: %s is not a valid lock; if no kyku is running, delete it by hand", id, b.url(key))
		}
	}
}

func describeHolder(h statemgr.LockInfo) string {
	who := h.Who
	if who == "" {
		who = "unknown"
	}
	s := fmt.Sprintf("%s, operation %q, pid %d on %s, since %s", who, h.Operation, h.PID, h.Host, h.Created.UTC().Format(time.RFC3339))
	if h.RunURL != "" {
		s += ", run " + h.RunURL
	}
	return s
}

func (b *Backend) lockedError(last *observed, cause error) error {
	if last == nil {
		if cause != nil {
			return fmt.Errorf("s3 backend: acquire lock %s: %w", b.url(b.lockKey()), cause)
		}
		return fmt.Errorf("s3 backend: acquire lock %s: timed out", b.url(b.lockKey()))
	}
	e := &statemgr.LockedError{Holder: last.info, Err: cause}
	if last.corrupt {
		e.Holder = statemgr.LockInfo{Path: b.url(b.lockKey()), Created: last.beat, Heartbeat: last.beat}
		bad := fmt.Errorf("lock object %s is not a valid lock; it is broken once older than %s, or delete it by hand if no kyku is running",
			b.url(b.lockKey()), b.opts.StaleAfter)
		if cause != nil {
			bad = fmt.Errorf("%w (%w)", cause, bad)
		}
		e.Err = bad
	}
	return e
}

func (b *Backend) isStale(o *observed) bool {
	return b.opts.Now().Sub(o.beat) > b.opts.StaleAfter
}

// readLock reads the lock object, or returns nil when there is none. A body
// that is not a lock is corrupt; its LastModified stands for its heartbeat.
func (b *Backend) readLock(ctx context.Context) (*observed, error) {
	o, err := b.get(ctx, b.lockKey())
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, b.wrap("read lock", b.lockKey(), err)
	}
	obs := &observed{etag: o.etag, beat: o.modified}
	if err := json.Unmarshal(o.data, &obs.info); err != nil || obs.info.ID == "" {
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

// heldLock is a lock this process holds; a goroutine refreshes its
// heartbeat (conditional on the lock's ETag) until Unlock.
type heldLock struct {
	b    *Backend
	stop chan struct{}
	done chan struct{} // closed when the heartbeat goroutine has returned

	mu   sync.Mutex
	info statemgr.LockInfo
	etag string // of the lock object as we last wrote it
	lost error  // set when the lock was taken from us

	once      sync.Once
	unlockErr error
}

func (b *Backend) hold(info statemgr.LockInfo, etag string) *heldLock {
	h := &heldLock{b: b, info: info, etag: etag, stop: make(chan struct{}), done: make(chan struct{})}
	go h.heartbeat()
	return h
}

// Info returns the lock's body as last written (with its latest heartbeat).
func (h *heldLock) Info() statemgr.LockInfo {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.info
}

// Lost returns an error wrapping ErrLockLost once the heartbeat found the
// lock taken from us, else nil.
func (h *heldLock) Lost() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lost
}

func (h *heldLock) heartbeat() {
	isLost := func(err error) bool { return errors.Is(err, ErrLockLost) }
	defer close(h.done) // after lost is set: Unlock reads it once done is closed
	if err := statemgr.Heartbeat(h.b.opts.Heartbeat, h.stop, h.beat, isLost); err != nil {
		h.mu.Lock()
		h.lost = err
		h.mu.Unlock()
	}
}

// beat rewrites the lock with a fresh heartbeat, conditional on its ETag.
func (h *heldLock) beat() error {
	h.mu.Lock()
	info, etag := h.info, h.etag
	h.mu.Unlock()
	info.Heartbeat = h.b.opts.Now().UTC()
	body, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("encode lock: %w", err)
	}
	// The heartbeat must not hang past a couple of periods, nor delay Unlock.
	ctx, cancel := context.WithTimeout(context.Background(), 2*h.b.opts.Heartbeat)
	defer cancel()
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-h.stop:
			cancel()
		case <-stopped:
		}
	}()
	key := h.b.lockKey()
	newTag, err := h.b.put(ctx, key, body, cond{ifMatch: etag})
	if err != nil && (isPreconditionFailed(err) || isNotFound(err)) {
		// Either the lock was taken from us, or an earlier attempt of ours
		// (cancelled, or retried by the SDK) landed: only our token tells.
		if obs, rerr := h.b.readLock(ctx); rerr == nil && (obs == nil || obs.info.ID != info.ID) {
			return fmt.Errorf("%w: %s no longer holds token %s (broken as stale or force-unlocked)", ErrLockLost, h.b.url(key), info.ID)
		} else if rerr == nil {
			info, newTag, err = obs.info, obs.etag, nil
		}
	}
	if err != nil {
		return h.b.wrap("refresh lock heartbeat", key, err)
	}
	h.mu.Lock()
	h.info, h.etag = info, newTag
	h.mu.Unlock()
	return nil
}

// Unlock stops the heartbeat and deletes the lock object conditionally on
// the ETag we last wrote. It reports ErrLockLost when the lock was taken from
// us meanwhile. It is safe to call more than once; later calls return the
// first call's result.
func (h *heldLock) Unlock(ctx context.Context) error {
	h.once.Do(func() {
		close(h.stop)
		<-h.done
		key := h.b.lockKey()
		h.mu.Lock()
		lost, etag, id := h.lost, h.etag, h.info.ID
		h.mu.Unlock()
		if lost != nil {
			h.unlockErr = fmt.Errorf("s3 backend: release lock: %w", lost)
			return
		}
		ambiguous, err := h.b.deleteIfMatch(ctx, key, etag)
		if isPreconditionFailed(err) || isNotFound(err) {
			// A heartbeat cut short by Unlock may have landed after all
			// (then the lock carries our token under another ETag), or an
			// attempt of this delete landed although its answer was lost
			// (then the lock is gone).
			obs, rerr := h.b.readLock(ctx)
			switch {
			case rerr != nil:
			case obs != nil && obs.info.ID == id:
				ambiguous, err = h.b.deleteIfMatch(ctx, key, obs.etag)
				if err != nil && ambiguous && isNotFound(err) {
					err = nil
				}
			case obs == nil && ambiguous:
				err = nil
			}
		}
		switch {
		case err == nil:
		case isPreconditionFailed(err) || isNotFound(err):
			h.unlockErr = fmt.Errorf("s3 backend: release lock %s: %w: token %s was broken or force-unlocked while held", h.b.url(key), ErrLockLost, id)
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

// randomToken returns 16 random hex digits.
func randomToken() string {
	buf := make([]byte, 8)
	_, _ = rand.Read(buf) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(buf)
}

// jitter spreads d by ±50% so waiting contenders do not poll in step.
func jitter(d time.Duration) time.Duration {
	return d/2 + time.Duration(mrand.Int64N(int64(d)+1))
}
