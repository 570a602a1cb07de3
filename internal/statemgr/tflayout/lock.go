package tflayout

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kyku/action/internal/statemgr"
)

// Lock takes the state's lock as OpenTofu does (the Slot's protocol), with
// a body OpenTofu shows as it shows its own. While another holds it (an
// OpenTofu run or a Kyku one) it waits up to Options.LockTimeout, telling
// ctx's LockWaiting hook once, then returns a *statemgr.LockedError naming
// the holder: who, the operation and since when. There is no heartbeat and
// no breaking of an old lock, as OpenTofu has none: a lock left behind is
// removed with force-unlock.
func (b *Backend) Lock(ctx context.Context, info statemgr.LockInfo) (statemgr.Lock, error) {
	now := b.opts.Now().UTC()
	info = statemgr.ForRun(ctx, info.WithDefaults(b.opts.Hostname, b.opts.PID))
	info.Created, info.Heartbeat = now, now
	info.Path = b.slot.LockPath()
	wait := statemgr.NewLockWait(b.opts.LockTimeout, b.opts.PollInterval, true)
	defer wait.Stop()
	for {
		got, err := b.slot.TryLock(ctx, tofuLock(info, b.opts.Version))
		if err == nil {
			info.ID = got.ID
			b.mu.Lock()
			b.lockID = got.ID
			b.mu.Unlock()
			return &held{b: b, info: info}, nil
		}
		var he *HeldError
		if !errors.As(err, &he) {
			return nil, fmt.Errorf("%s: acquire state lock %s: %w", b.opts.Name, b.slot.LockPath(), err)
		}
		holder := he.Holder.Holder()
		if he.PID != 0 {
			holder.PID = he.PID
		}
		if holder.Path == "" {
			holder.Path = b.slot.LockPath()
		}
		if again, cause := wait.Wait(ctx, &holder); !again {
			return nil, &statemgr.LockedError{Holder: holder, Err: cause}
		}
	}
}

// ForceUnlock removes the lock if its ID is id, whoever took it (an
// OpenTofu run's too: its ID is the one tofu printed).
func (b *Backend) ForceUnlock(ctx context.Context, id string) error {
	if err := b.slot.ForceUnlock(ctx, id); err != nil {
		return fmt.Errorf("%s: force-unlock %s: %w", b.opts.Name, b.slot.LockPath(), err)
	}
	return nil
}

type held struct {
	b    *Backend
	info statemgr.LockInfo
	once sync.Once
	err  error
}

func (h *held) Info() statemgr.LockInfo { return h.info }

// Unlock releases the lock; a second call returns the first's result.
func (h *held) Unlock(ctx context.Context) error {
	h.once.Do(func() {
		h.b.mu.Lock()
		if h.b.lockID == h.info.ID {
			h.b.lockID = ""
		}
		h.b.mu.Unlock()
		if err := h.b.slot.Unlock(ctx, h.info.ID); err != nil {
			h.err = fmt.Errorf("%s: release state lock %s: %w", h.b.opts.Name, h.b.slot.LockPath(), err)
		}
	})
	return h.err
}
