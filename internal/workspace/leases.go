package workspace

import (
	"context"
	"errors"
	"fmt"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/statemgr"
)

// Leases returns the lease manager of b, or nil when its applies take the
// whole-state lock. Leases are the default wherever the store enforces
// conditional writes (a local directory, S3, GCS, Spaces with its lock):
// bc's leases: false turns them off; leases: true on a store that cannot
// hold them (Spaces with lock: false) is refused, since the user asked for
// applies at once and they would not be safe there. Left unset, such a
// store (and Terraform's HTTP backend) keeps the whole-state lock. A
// Terraform root's state is never opened with leases (OpenTofu's
// whole-state lock: lease.WholeStateOnly).
func Leases(ctx context.Context, bc *config.Backend, b statemgr.Backend, s Settings) (*lease.Manager, error) {
	var asked *bool
	if bc != nil {
		asked = bc.Leases
	}
	if asked != nil && !*asked {
		return nil, nil
	}
	m, err := lease.For(ctx, b, s.Env, lease.Options{Timeout: s.LockTimeout, StaleAfter: s.StaleAfter, Heartbeat: s.Heartbeat, Poll: s.PollInterval})
	if err != nil {
		return nil, fmt.Errorf("open leases (%s): %w", b.Describe(), err)
	}
	if m == nil && asked != nil {
		return nil, errors.New(bc.Type + " backend: leases: true needs a store that enforces conditional writes (with lock: false it does not)")
	}
	return m, nil
}
