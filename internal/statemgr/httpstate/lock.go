package httpstate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/kyku/action/internal/statemgr"
)

// ErrLockLost is wrapped by Unlock when the server no longer holds our
// lock. It is statemgr.ErrLockLost.
var ErrLockLost = statemgr.ErrLockLost

// tfLockInfo is the lock body of Terraform's protocol (field names as they
// are: Terraform's LockInfo has no JSON tags). Info carries Kyku's own
// LockInfo as JSON, so another Kyku can name the holder fully.
type tfLockInfo struct {
	ID        string
	Operation string
	Info      string
	Who       string
	Version   string
	Created   time.Time
	Path      string
}

func (b *Backend) lockBody(info statemgr.LockInfo) []byte {
	k, _ := json.Marshal(info)
	body, _ := json.Marshal(tfLockInfo{ID: info.ID, Operation: info.Operation, Info: string(k), Who: info.Who,
		Version: "kyku", Created: info.Created, Path: redact(b.cfg.Address)})
	return body
}

// holder decodes a lock body from the server into Kyku's LockInfo.
func holder(body []byte) (statemgr.LockInfo, bool) {
	var tf tfLockInfo
	if json.Unmarshal(body, &tf) != nil || tf.ID == "" {
		return statemgr.LockInfo{}, false
	}
	var k statemgr.LockInfo
	if json.Unmarshal([]byte(tf.Info), &k) == nil && k.ID == tf.ID {
		return k, true
	}
	return statemgr.LockInfo{ID: tf.ID, Operation: tf.Operation, Who: tf.Who, Created: tf.Created, Heartbeat: tf.Created, Path: tf.Path}, true
}

// Lock sends LOCK (lockMethod) to lockAddress, and while the server answers
// 409 or 423 (held) polls until Options.LockTimeout, then returns a
// *statemgr.LockedError naming the holder. A holder ctx's Successor
// inherits (statemgr.Inherits) is unlocked with its own token at once, and
// ctx's LockTakenOver hook is told. A transient failure that
// outlasts Config.RetryMax is tried again the same way, until the lock
// timeout: the lock's budget is the lock timeout, not the retry count.
// Without a lock address it returns at once with a lock that guards
// nothing.
func (b *Backend) Lock(ctx context.Context, info statemgr.LockInfo) (statemgr.Lock, error) {
	if b.cfg.LockAddress == "" {
		info.ID = statemgr.NewLockID()
		info.Created = b.opts.Now().UTC()
		return &heldLock{b: b, info: info, none: true}, nil
	}
	got, err := b.lockLocked(ctx, info)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.lockID = got.ID
	b.mu.Unlock()
	return &heldLock{b: b, info: got}, nil
}

// lockLocked takes the server's lock; it does not touch b's fields. When it
// gives up after a LOCK that may have landed (its answer lost), it releases
// that lock again, so that a failed Lock never leaves the lock held.
func (b *Backend) lockLocked(ctx context.Context, info statemgr.LockInfo) (statemgr.LockInfo, error) {
	info = statemgr.ForRun(ctx, info.WithDefaults(b.opts.Hostname, b.opts.PID))
	info.Path = redact(b.cfg.Address)
	wait := statemgr.NewLockWait(b.opts.LockTimeout, b.opts.PollInterval, true)
	defer wait.Stop()
	var last *statemgr.LockInfo
	var lastErr error // the last transient failure, when it was the last answer
	var mayHold bool  // a LOCK may have landed without our seeing its answer
	fail := func(err error) (statemgr.LockInfo, error) {
		if mayHold {
			err = b.releaseAfterFailedLock(ctx, info.ID, err)
		}
		return info, err
	}
	locked := func(cause error) error {
		if lastErr != nil {
			if cause != nil {
				return fmt.Errorf("http backend: acquire lock %s: %w (last failure: %w)", redact(b.cfg.LockAddress), cause, lastErr)
			}
			return fmt.Errorf("http backend: acquire lock %s: gave up at the lock timeout: %w", redact(b.cfg.LockAddress), lastErr)
		}
		if last == nil {
			if cause == nil {
				cause = errors.New("timed out")
			}
			return fmt.Errorf("http backend: acquire lock %s: %w", redact(b.cfg.LockAddress), cause)
		}
		return &statemgr.LockedError{Holder: *last, Err: cause}
	}
	for {
		now := b.opts.Now().UTC()
		info.Created, info.Heartbeat = now, now
		resp, _, err := b.do(ctx, b.cfg.LockMethod, b.cfg.LockAddress, b.lockBody(info))
		switch {
		case err != nil && ctx.Err() != nil:
			mayHold = true
			return fail(locked(ctx.Err()))
		case err != nil:
			// Every attempt failed in transit; any of them may have
			// reached the server. Look again after the poll interval: the
			// next LOCK finds our own lock if one landed.
			mayHold, lastErr = true, err
		default:
			lastErr = nil
			switch resp.status {
			case http.StatusOK, http.StatusCreated, http.StatusNoContent:
				return info, nil
			case http.StatusConflict, http.StatusLocked:
				h, ok := holder(resp.body)
				if ok && h.ID == info.ID {
					return info, nil // our own LOCK landed; its answer was lost
				}
				if !ok {
					h = statemgr.LockInfo{Path: redact(b.cfg.LockAddress)}
				}
				last = &h
				mayHold = false // someone else holds it: none of ours landed
				if ok && statemgr.Inherits(ctx, h) && b.unlockLocked(ctx, h.ID) == nil {
					statemgr.TellTakenOver(ctx, h, statemgr.JobResumed)
					continue // LOCK again at once
				}
			default:
				return fail(fmt.Errorf("http backend: acquire lock: %w", &StatusError{Method: b.cfg.LockMethod, URL: redact(b.cfg.LockAddress), Status: resp.status, Body: snippet(resp.body)}))
			}
		}
		var holder *statemgr.LockInfo
		if lastErr == nil {
			holder = last // held by another (nil after a failed call: retrying, not waiting for a holder)
		}
		if again, cause := wait.Wait(ctx, holder); !again {
			return fail(locked(cause))
		}
	}
}

// releaseAfterFailedLock sends UNLOCK for a lock id that a failed Lock may
// have taken, and says in err what is left when that fails too.
func (b *Backend) releaseAfterFailedLock(ctx context.Context, id string, err error) error {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unlockBudget)
	defer cancel()
	uerr := b.unlockLocked(uctx, id)
	var se *StatusError
	if uerr == nil || errors.Is(uerr, ErrLockLost) || errors.As(uerr, &se) {
		return err // released, or the server says it does not hold ours
	}
	return fmt.Errorf("%w; a LOCK may have landed and could not be released (%v): if kyku force-unlock is needed, the token is %s", err, uerr, id)
}

// unlockBudget bounds how long UNLOCK is tried again after a transient
// failure outlasts Config.RetryMax (the caller's ctx may end it sooner): a
// lock left behind stops every later run until someone force-unlocks it.
const unlockBudget = 30 * time.Second

// unlockLocked sends UNLOCK for id; when a transient failure outlasts
// Config.RetryMax it tries again every poll interval for up to
// unlockBudget. A refusal after an attempt that may have landed
// is our own earlier success.
func (b *Backend) unlockLocked(ctx context.Context, id string) error {
	body, _ := json.Marshal(tfLockInfo{ID: id, Version: "kyku", Path: redact(b.cfg.Address)})
	ctx, cancel := context.WithTimeout(ctx, unlockBudget)
	defer cancel()
	var resp response
	mayHaveLanded := false
	for {
		r, ambiguous, err := b.do(ctx, b.cfg.UnlockMethod, b.cfg.UnlockAddress, body)
		mayHaveLanded = mayHaveLanded || ambiguous
		if err == nil {
			resp = r
			break
		}
		if ctx.Err() != nil {
			return fmt.Errorf("http backend: release lock %s (token %s; kyku force-unlock %s removes it): %w", redact(b.cfg.UnlockAddress), id, id, err)
		}
		t := time.NewTimer(b.opts.PollInterval)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	switch {
	case resp.status == http.StatusOK || resp.status == http.StatusNoContent:
		return nil
	case mayHaveLanded && (resp.status == http.StatusConflict || resp.status == http.StatusNotFound || resp.status == http.StatusLocked):
		if h, ok := holder(resp.body); !ok || h.ID == id {
			return nil
		}
	}
	if h, ok := holder(resp.body); ok && h.ID != id {
		return fmt.Errorf("http backend: release lock %s: %w: %w (held by %s)", id, ErrLockLost, statemgr.ErrWrongToken, h.Describe())
	}
	return fmt.Errorf("http backend: release lock %s: %w", id, &StatusError{Method: b.cfg.UnlockMethod, URL: redact(b.cfg.UnlockAddress), Status: resp.status, Body: snippet(resp.body)})
}

// ForceUnlock sends UNLOCK with the given token; the server refuses another
// holder's token (409), and the error describes the holder but not its
// token.
func (b *Backend) ForceUnlock(ctx context.Context, id string) error {
	if b.cfg.LockAddress == "" {
		return fmt.Errorf("force-unlock %s: the http backend has no lockAddress, so there is no lock", id)
	}
	if err := b.unlockLocked(ctx, id); err != nil {
		return fmt.Errorf("force-unlock %s: %w", id, err)
	}
	return nil
}

// heldLock is the server's lock while we hold it. The protocol has no
// heartbeat: the server keeps it until UNLOCK.
type heldLock struct {
	b    *Backend
	info statemgr.LockInfo
	none bool // no lock address: nothing to release

	once sync.Once
	err  error
}

func (h *heldLock) Info() statemgr.LockInfo { return h.info }

func (h *heldLock) Unlock(ctx context.Context) error {
	h.once.Do(func() {
		if h.none {
			return
		}
		h.b.mu.Lock()
		if h.b.lockID == h.info.ID {
			h.b.lockID = ""
		}
		h.b.mu.Unlock()
		h.err = h.b.unlockLocked(ctx, h.info.ID)
	})
	return h.err
}
