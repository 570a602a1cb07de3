package workspace

import (
	"context"
	"errors"
	"fmt"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/statemgr"
)

// Leases returns the lease manager of b when its configuration bc asks for
// leases (leases: true), nil otherwise. A backend that cannot hold them
// (no conditional writes, lock: false) is refused: the user asked for
// applies at once, and they would not be safe there. A Terraform root's
// state is never opened with leases (OpenTofu's whole-state lock).
func Leases(ctx context.Context, bc *config.Backend, b statemgr.Backend, s Settings) (*lease.Manager, error) {
	if bc == nil || !bc.Leases {
		return nil, nil
	}
	m, err := lease.For(ctx, b, s.Env, lease.Options{Timeout: s.LockTimeout, StaleAfter: s.StaleAfter, Heartbeat: s.Heartbeat, Poll: s.PollInterval})
	if err != nil {
		return nil, fmt.Errorf("open leases (%s): %w", b.Describe(), err)
	}
	if m == nil {
		return nil, errors.New(bc.Type + " backend: leases: true needs a store that enforces conditional writes (with lock: false it does not)")
	}
	return m, nil
}
