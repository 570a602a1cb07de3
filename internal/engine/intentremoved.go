package engine

import (
	"slices"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
)

// An apply that destroys what was removed from the configuration is
// refused, as kyku destroy is, while an address it no longer names holds
// an open intent: the object that create may have made would be left,
// unmanaged, by an apply that reports the removed resources destroyed.

// refuseInterruptedRemoved refuses changes that destroy something while
// st holds an open intent at an address cfg no longer has and the plan
// covers (keep: --target, as OpenTofu scopes everything to its targets;
// an intent outside them is neither destroyed nor reported gone).
func refuseInterruptedRemoved(st *state.File, cfg *config.Config, changes []plan.Change, keep func(string) bool) error {
	if st == nil || cfg == nil || len(st.Interrupted) == 0 ||
		!slices.ContainsFunc(changes, func(c plan.Change) bool { return c.Action == plan.Destroy }) {
		return nil
	}
	ie := &InterruptedError{Removed: true}
	for n := range st.Interrupted {
		if cfg.Resource(n) == nil && keep(n) {
			ie.Names = append(ie.Names, n)
		}
	}
	if len(ie.Names) == 0 {
		return nil
	}
	slices.Sort(ie.Names)
	return ie
}
