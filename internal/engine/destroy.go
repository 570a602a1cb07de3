package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
)

// deleteWith deletes one cloud object following the seed: resolve a stale
// ID by name, retry (DestroyAttempts, waiting 2^n × DestroyBase), then
// verify deletion by polling Read until "not found". For a type whose
// provider keeps its own state it hands the provider what state keeps of
// the object (sr) and the plan's prior state (prior), once (transient
// errors retried), without the lookups by name and polls Kyku's own types
// need.
func (e *Engine) deleteWith(ctx context.Context, ev *progress.Event, typ, name, cloudName, id string, sr *state.Resource, prior *plan.Planned) error {
	if e.ownState(typ) {
		if sr == nil {
			return fmt.Errorf("%s %q: not in state", typ, name)
		}
		return e.call(ctx, ev, func(ctx context.Context) error {
			err := e.provider.DeleteStored(ctx, typ, id, storedOf(sr), toProvider(prior))
			if isNotFound(err) {
				return nil
			}
			return err
		})
	}
	if e.staleID(typ, name, cloudName, id) {
		o, err := e.findByName(ctx, typ, name, cloudName)
		switch {
		case isNotFound(err):
			return nil // nothing by that name: nothing to destroy
		case err != nil:
			return fmt.Errorf("resolve stale provider ID %q by name: %w", id, err)
		}
		id = o.ID
	}
	err := e.retry(ctx, e.opts.DestroyAttempts, e.opts.DestroyBase, time.Duration(1<<uint(e.opts.DestroyAttempts))*e.opts.DestroyBase, false, ev, func(ctx context.Context) error {
		err := e.provider.Delete(ctx, typ, id)
		if isNotFound(err) {
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	for n := 0; n < e.opts.VerifyAttempts; n++ {
		_, err := e.provider.Read(ctx, typ, id)
		if isNotFound(err) {
			return nil
		}
		if err != nil && !provider.IsTransient(err) {
			return fmt.Errorf("verify deletion of %s: %w", id, err)
		}
		if err := e.opts.Sleep(ctx, e.opts.VerifyInterval); err != nil {
			return fmt.Errorf("verify deletion of %s: %w", id, err)
		}
	}
	return fmt.Errorf("%s %s still exists %d polls after deletion", typ, id, e.opts.VerifyAttempts)
}

func (e *Engine) staleID(typ, name, cloudName, id string) bool {
	if id == "" || id == name || (cloudName != "" && id == cloudName) {
		return true
	}
	return !e.provider.ValidID(typ, id)
}
