package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
)

// discover reads, in parallel, every state resource that has a provider ID
// (first in bulk when the provider can, see bulkRead; a stale ID is
// resolved by name, see read). "Not found" means gone; any other error
// aborts, naming the resource.
func (e *Engine) discover(ctx context.Context, st *state.File, keep func(string) bool) (map[string]provider.Object, map[string]bool, error) {
	todo := make([]*state.Resource, 0, len(st.Resources))
	for n, r := range st.Resources { // any order: the workers read in parallel
		if r.ProviderID != "" && (keep == nil || keep(n)) {
			todo = append(todo, r)
		}
	}
	objs := make(map[string]provider.Object, len(todo))
	todo, err := e.bulkRead(ctx, st, todo, objs) // what a bulk list missed is read one by one
	if err != nil {
		return nil, nil, err
	}
	gone := map[string]bool{}
	var mu sync.Mutex
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// Parallelism workers take the next name until none is left (a pool,
	// not a goroutine per resource).
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(e.opts.Parallelism, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(todo) {
					return
				}
				sr := todo[i]
				o, err := e.read(ctx, sr)
				mu.Lock()
				switch {
				case err == nil:
					objs[sr.Name] = o
				case isNotFound(err):
					gone[sr.Name] = true
				default:
					cancel(fmt.Errorf("read %s %q (id %s): %w", sr.Type, sr.Name, sr.ProviderID, err))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, nil, err
	}
	return objs, gone, nil
}
