package lease

import (
	"context"
	"errors"

	"github.com/kyku/action/internal/statemgr"
)

// WholeStateOnly is a backend whose state another tool may also write,
// which knows nothing of leases (statemgr/tflayout: OpenTofu's layout and
// lock): its applies keep the whole-state lock.
type WholeStateOnly interface {
	WholeStateOnly()
}

// Enforcer is a Store that knows without a request whether it enforces
// conditional writes, so that opening a state with leases (the default)
// costs no request and fails on no credentials the run would not use.
type Enforcer interface {
	EnforcesConditionalWrites() bool
}

// For returns the lease manager of environment env on backend b, or nil
// when the state's applies take the whole-state lock instead: b offers no
// conditional writes (a local directory, Terraform's HTTP backend), its
// store does not enforce them (lock: false), or it keeps a state OpenTofu
// may also write (WholeStateOnly: package tflayout), which keeps
// OpenTofu's whole-state lock since OpenTofu knows nothing of leases.
func For(ctx context.Context, b statemgr.Backend, env string, opts Options) (*Manager, error) {
	if _, whole := b.(WholeStateOnly); whole {
		return nil, nil
	}
	s, ok := b.(Store)
	if !ok {
		return nil, nil
	}
	m := New(s, env, opts)
	if k, ok := s.(Enforcer); ok {
		if !k.EnforcesConditionalWrites() {
			return nil, nil
		}
		return m, nil
	}
	_, _, err := s.ReadObject(ctx, m.key("probe"))
	switch {
	case errors.Is(err, statemgr.ErrNotConditional):
		return nil, nil
	case err != nil && !errors.Is(err, statemgr.ErrNotFound):
		return nil, err
	}
	return m, nil
}
