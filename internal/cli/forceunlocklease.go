package cli

import (
	"context"
	"fmt"

	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/statemgr"
)

// refuseLeaseToken refuses force-unlock of token when it is the run token
// of an apply holding leases on b (what a lease message names): that is
// not a lock, and force-unlock would only say no lock is held. The apply
// releases its leases when it ends; a dead one's are taken over once
// stale, and its journal folded by the next leased apply.
func refuseLeaseToken(ctx context.Context, b statemgr.Backend, env, token string) error {
	m, err := lease.For(ctx, b, env, lease.Options{})
	if err != nil || m == nil {
		return nil // no leases here: force-unlock says what it finds
	}
	live, err := m.Live(ctx)
	if err != nil {
		return nil
	}
	h, ok := live[token]
	if !ok {
		return nil
	}
	return fmt.Errorf("force-unlock %s: that is the run token of an apply holding leases on objects of %s (%s), not a lock; its leases are released when it ends, or taken over by the next apply needing them once its heartbeat is older than the stale age (a dead run's)", token, b.Describe(), h.Describe())
}
