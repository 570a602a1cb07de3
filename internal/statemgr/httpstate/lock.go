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
// *statemgr.LockedError naming the holder. Without a lock address it
// returns at once with a lock that guards nothing.
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

// lockLocked takes the server's lock; it does not touch b's fields.
func (b *Backend) lockLocked(ctx context.Context, info statemgr.LockInfo) (statemgr.LockInfo, error) {
	info = info.WithDefaults(b.opts.Hostname, b.opts.PID)
	info.Path = redact(b.cfg.Address)
	wait := statemgr.NewLockWait(b.opts.LockTimeout, b.opts.PollInterval, true)
	defer wait.Stop()
	var last *statemgr.LockInfo
	locked := func(cause error) error {
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
		if err != nil {
			if ctx.Err() != nil {
				return info, locked(ctx.Err())
			}
			return info, fmt.Errorf("http backend: acquire lock: %w", err)
		}
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
		default:
			return info, fmt.Errorf("http backend: acquire lock: %w", &StatusError{Method: b.cfg.LockMethod, URL: redact(b.cfg.LockAddress), Status: resp.status, Body: snippet(resp.body)})
		}
		if again, cause := wait.Wait(ctx); !again {
			return info, locked(cause)
		}
	}
}

// unlockLocked sends UNLOCK for id. A refusal after an attempt that may
// have landed is our own earlier success.
func (b *Backend) unlockLocked(ctx context.Context, id string) error {
	body, _ := json.Marshal(tfLockInfo{ID: id, Version: "kyku", Path: redact(b.cfg.Address)})
	resp, ambiguous, err := b.do(ctx, b.cfg.UnlockMethod, b.cfg.UnlockAddress, body)
	if err != nil {
		return fmt.Errorf("http backend: release lock: %w", err)
	}
	switch {
	case resp.status == http.StatusOK || resp.status == http.StatusNoContent:
		return nil
	case ambiguous && (resp.status == http.StatusConflict || resp.status == http.StatusNotFound || resp.status == http.StatusLocked):
		if h, ok := holder(resp.body); !ok || h.ID == id {
			return nil
		}
	}
	if h, ok := holder(resp.body); ok && h.ID != id {
		return fmt.Errorf("http backend: release lock: %w: the server holds token %s (%s, operation %q), not %s", ErrLockLost, h.ID, h.Who, h.Operation, id)
	}
	return fmt.Errorf("http backend: release lock %s: %w", id, &StatusError{Method: b.cfg.UnlockMethod, URL: redact(b.cfg.UnlockAddress), Status: resp.status, Body: snippet(resp.body)})
}

// ForceUnlock sends UNLOCK with the given token; the server refuses another
// holder's token (409, naming the holder).
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
