package lease

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kyku/action/internal/statemgr"
)

// Whole is the object a whole-state operation leases (no resource is
// named "*"): an apply, destroy, refresh or state command under the
// whole-state lock, which writes any object. It is taken once no other
// lease is live, and no other lease is held while it is.
const Whole = "*"

// AcquireWhole leases the whole state for holder (who also holds the
// whole-state lock): it takes Whole, then waits until no other run holds
// a lease, up to the timeout; then it refuses with a *HeldError naming an
// object still held and its holder. Leased applies that start meanwhile
// see Whole held and wait for it.
func (m *Manager) AcquireWhole(ctx context.Context, holder Holder) (*Set, error) {
	s, err := m.Acquire(ctx, []string{Whole}, holder)
	if err != nil {
		return nil, err
	}
	w := statemgr.NewLockWait(m.opts.Timeout, m.opts.Poll, true)
	defer w.Stop()
	start := m.opts.Now()
	for {
		recs, err := m.live(ctx)
		if err != nil {
			_ = s.Release(context.WithoutCancel(ctx))
			return nil, err
		}
		var other *record
		for i := range recs {
			if recs[i].Holder.Run != s.holder.Run {
				other = &recs[i]
				break
			}
		}
		if other == nil {
			return s, nil
		}
		if again, cause := w.Wait(ctx, &other.Holder.Lock); !again {
			_ = s.Release(context.WithoutCancel(ctx))
			return nil, &HeldError{Object: other.Object, Holder: other.Holder, Waited: m.opts.Now().Sub(start).Round(time.Millisecond), Err: cause}
		}
	}
}

// wholeHeld returns Whole's lease when another run holds it live.
func (m *Manager) wholeHeld(ctx context.Context, holder Holder) (*record, error) {
	data, _, err := m.store.ReadObject(ctx, m.key(Whole))
	if errors.Is(err, statemgr.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the whole state's lease: %w", err)
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("the whole state's lease is not a lease (remove it by hand): %w", err)
	}
	if r.Holder.Run == holder.Run || m.opts.Now().Sub(r.Heartbeat) >= m.opts.StaleAfter {
		return nil, nil
	}
	return &r, nil
}
