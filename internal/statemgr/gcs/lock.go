package gcs

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

// ErrLockLost is wrapped by Unlock when the lock was broken as stale or
// force-unlocked while held.
var ErrLockLost = errors.New("lock lost")

// observed is one read of the lock object.
type observed struct {
	info       statemgr.LockInfo
	generation int64
	corrupt    bool
	beat       time.Time // the later of the heartbeat and the object's update time
}

// Lock creates the lock object only if absent (ifGenerationMatch=0),
// waiting up to Options.LockTimeout. A lock whose last sign of life is older
// than Options.StaleAfter is broken, when a re-read still shows it, by
// overwriting it with ifGenerationMatch on the generation read: of two
// breakers only one wins. On timeout it returns a *statemgr.LockedError.
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
	var deadline <-chan time.Time
	if b.opts.LockTimeout > 0 {
		t := time.NewTimer(b.opts.LockTimeout)
		defer t.Stop()
		deadline = t.C
	}
	poll := time.NewTimer(time.Hour)
	defer poll.Stop()
	key := b.lockKey()
	var last *observed
	for {
		if err := ctx.Err(); err != nil {
			return nil, b.lockedError(last, err)
		}
		now := b.opts.Now().UTC()
		info.Created, info.Heartbeat = now, now
		body, err := json.Marshal(info)
		if err != nil {
			return nil, fmt.Errorf("gcs backend: encode lock: %w", err)
		}
		gen, err := b.put(ctx, key, body, absent)
		if err == nil {
			return b.hold(info, gen), nil
		}
		if !isPreconditionFailed(err) {
			if ctx.Err() != nil {
				return nil, b.lockedError(last, ctx.Err())
			}
			return nil, b.wrap("acquire lock", key, err)
		}
		obs, err := b.readLock(ctx)
		if err != nil {
			return nil, err
		}
		if obs == nil {
			continue // released meanwhile
		}
		if obs.info.ID == info.ID {
			return b.hold(obs.info, obs.generation), nil // our put landed, its answer was lost
		}
		last = obs
		if b.isStale(obs) {
			now := b.opts.Now().UTC()
			info.Created, info.Heartbeat = now, now
			if body, err = json.Marshal(info); err != nil {
				return nil, fmt.Errorf("gcs backend: encode lock: %w", err)
			}
			if gen, err := b.takeStale(ctx, obs, body); err != nil {
				return nil, err
			} else if gen != 0 {
				return b.hold(info, gen), nil
			}
			continue
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

// takeStale replaces a stale lock with ours if a re-read still shows it,
// returning the new generation, or 0 when the lock changed meanwhile.
func (b *Backend) takeStale(ctx context.Context, stale *observed, body []byte) (int64, error) {
	again, err := b.readLock(ctx)
	if err != nil || again == nil {
		return 0, err
	}
	if again.generation != stale.generation || again.info.ID != stale.info.ID || !b.isStale(again) {
		return 0, nil
	}
	gen, err := b.put(ctx, b.lockKey(), body, onGeneration(again.generation))
	switch {
	case err == nil:
		return gen, nil
	case isPreconditionFailed(err), isNotFound(err):
		return 0, nil
	}
	return 0, b.wrap("break stale lock", b.lockKey(), err)
}

// ForceUnlock removes the lock if its token is id, deleting by the
// generation read; it refuses, naming the holder, for another token.
func (b *Backend) ForceUnlock(ctx context.Context, id string) error {
	key := b.lockKey()
	for attempt := 0; ; attempt++ {
		obs, err := b.readLock(ctx)
		switch {
		case err != nil:
			return fmt.Errorf("force-unlock %s: %w", id, err)
		case obs == nil && attempt == 0:
			return fmt.Errorf("force-unlock %s: no lock is held at %s", id, b.url(key))
		case obs == nil:
			return nil
		case obs.corrupt:
			return fmt.Errorf("force-unlock %s: %s is not a valid lock; if no kyku is running, delete it by hand", id, b.url(key))
		case obs.info.ID != id:
			return fmt.Errorf("force-unlock %s: the lock is held by token %s (%s, operation %q, since %s), not %s",
				id, obs.info.ID, obs.info.Who, obs.info.Operation, obs.info.Created.UTC().Format(time.RFC3339), id)
		}
		err = b.deleteGeneration(ctx, key, obs.generation)
		switch {
		case err == nil, isNotFound(err) && attempt > 0:
			return nil
		case !isPreconditionFailed(err) && !isNotFound(err):
			return fmt.Errorf("force-unlock %s: %w", id, b.wrap("delete lock", key, err))
		case attempt == 4:
			return fmt.Errorf("force-unlock %s: the lock kept changing while we deleted it; try again", id)
		}
	}
}

func (b *Backend) lockedError(last *observed, cause error) error {
	if last == nil {
		if cause != nil {
			return fmt.Errorf("gcs backend: acquire lock %s: %w", b.url(b.lockKey()), cause)
		}
		return fmt.Errorf("gcs backend: acquire lock %s: timed out", b.url(b.lockKey()))
	}
	e := &statemgr.LockedError{Holder: last.info, Err: cause}
	if last.corrupt {
		e.Holder = statemgr.LockInfo{Path: b.url(b.lockKey()), Created: last.beat, Heartbeat: last.beat}
		e.Err = fmt.Errorf("lock object %s is not a valid lock; it is broken once older than %s, or delete it by hand if no kyku is running",
			b.url(b.lockKey()), b.opts.StaleAfter)
	}
	return e
}

func (b *Backend) isStale(o *observed) bool { return b.opts.Now().Sub(o.beat) > b.opts.StaleAfter }

// readLock reads the lock object, or returns nil when there is none.
func (b *Backend) readLock(ctx context.Context) (*observed, error) {
	o, err := b.get(ctx, b.lockKey())
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, b.wrap("read lock", b.lockKey(), err)
	}
	obs := &observed{generation: o.generation, beat: o.updated}
	if err := json.Unmarshal(o.data, &obs.info); err != nil || obs.info.ID == "" {
		obs.info, obs.corrupt = statemgr.LockInfo{}, true
		return obs, nil
	}
	beat := obs.info.Heartbeat
	if beat.IsZero() {
		beat = obs.info.Created
	}
	if beat.After(obs.beat) {
		obs.beat = beat
	}
	return obs, nil
}

// heldLock is a lock this process holds; a goroutine refreshes it.
type heldLock struct {
	b    *Backend
	stop chan struct{}
	done chan struct{}

	mu         sync.Mutex
	info       statemgr.LockInfo
	generation int64
	lost       error

	once      sync.Once
	unlockErr error
}

func (b *Backend) hold(info statemgr.LockInfo, gen int64) *heldLock {
	h := &heldLock{b: b, info: info, generation: gen, stop: make(chan struct{}), done: make(chan struct{})}
	go h.heartbeat()
	return h
}

func (h *heldLock) Info() statemgr.LockInfo {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.info
}

func (h *heldLock) heartbeat() {
	defer close(h.done)
	if err := statemgr.Heartbeat(h.b.opts.Heartbeat, h.stop, h.beat, func(err error) bool { return errors.Is(err, ErrLockLost) }); err != nil {
		h.mu.Lock()
		h.lost = err
		h.mu.Unlock()
	}
}

// beat rewrites the lock with a fresh heartbeat, on its generation.
func (h *heldLock) beat() error {
	h.mu.Lock()
	info, gen := h.info, h.generation
	h.mu.Unlock()
	info.Heartbeat = h.b.opts.Now().UTC()
	body, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("encode lock: %w", err)
	}
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
	newGen, err := h.b.put(ctx, key, body, onGeneration(gen))
	if err != nil && (isPreconditionFailed(err) || isNotFound(err)) {
		if obs, rerr := h.b.readLock(ctx); rerr == nil && (obs == nil || obs.info.ID != info.ID) {
			return fmt.Errorf("%w: %s no longer holds token %s (broken as stale or force-unlocked)", ErrLockLost, h.b.url(key), info.ID)
		} else if rerr == nil {
			info, newGen, err = obs.info, obs.generation, nil
		}
	}
	if err != nil {
		return h.b.wrap("refresh lock heartbeat", key, err)
	}
	h.mu.Lock()
	h.info, h.generation = info, newGen
	h.mu.Unlock()
	return nil
}

// Unlock stops the heartbeat and deletes the lock by the generation we
// last wrote; it reports ErrLockLost when the lock was taken from us.
func (h *heldLock) Unlock(ctx context.Context) error {
	h.once.Do(func() {
		close(h.stop)
		<-h.done
		key := h.b.lockKey()
		h.mu.Lock()
		lost, gen, id := h.lost, h.generation, h.info.ID
		h.mu.Unlock()
		if lost != nil {
			h.unlockErr = fmt.Errorf("gcs backend: release lock: %w", lost)
			return
		}
		err := h.b.deleteGeneration(ctx, key, gen)
		if isPreconditionFailed(err) || isNotFound(err) {
			// A heartbeat cut short may have landed (our token under another
			// generation), or a retried delete of ours landed (gone).
			obs, rerr := h.b.readLock(ctx)
			switch {
			case rerr != nil:
			case obs != nil && obs.info.ID == id:
				err = h.b.deleteGeneration(ctx, key, obs.generation)
			case obs == nil:
				err = nil // gone: our delete, retried by the library, or a force-unlock; either way it is not held
			}
		}
		switch {
		case err == nil:
		case isPreconditionFailed(err) || isNotFound(err):
			h.unlockErr = fmt.Errorf("gcs backend: release lock %s: %w: token %s was broken or force-unlocked while held", h.b.url(key), ErrLockLost, id)
		default:
			h.unlockErr = h.b.wrap("release lock", key, err)
		}
	})
	return h.unlockErr
}

func randomToken() string {
	buf := make([]byte, 8)
	_, _ = rand.Read(buf)
	return hex.EncodeToString(buf)
}

func jitter(d time.Duration) time.Duration {
	return d/2 + time.Duration(mrand.Int64N(int64(d)+1))
}
