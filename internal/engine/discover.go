package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
)

// discover reads, in parallel, every state resource that has a provider ID
// (first in bulk when the provider can, see bulkRead; a stale ID is
// resolved by name, see read). "Not found" means gone; any other error
// aborts, naming the resource. slots, when not nil, are the plan's
// (readPool).
func (e *Engine) discover(ctx context.Context, st *state.File, keep func(string) bool, slots chan struct{}) (map[string]provider.Object, map[string]bool, error) {
	todo := readable(st, keep)
	objs := make(map[string]provider.Object, len(todo))
	todo, err := e.bulkRead(ctx, st, todo, objs) // what a bulk list missed is read one by one
	if err != nil {
		return nil, nil, err
	}
	gone := map[string]bool{}
	err = e.readPool(ctx, todo, slots, func(sr *state.Resource, o provider.Object, missing bool) {
		if missing {
			gone[sr.Name] = true
		} else {
			objs[sr.Name] = o
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return objs, gone, nil
}

// readable is what discover reads of st: the resources with a provider ID
// that keep keeps (nil: all), in any order.
func readable(st *state.File, keep func(string) bool) []*state.Resource {
	todo := make([]*state.Resource, 0, len(st.Resources))
	for n, r := range st.Resources {
		if r.ProviderID != "" && (keep == nil || keep(n)) {
			todo = append(todo, r)
		}
	}
	return todo
}

// readPool reads todo, Parallelism workers taking the next one in todo's
// order until none is left (a pool, not a goroutine per resource), and
// hands each object read, or found gone, to got (one call at a time). The
// first other error cancels the rest and is returned, naming the
// resource. slots, when not nil, bounds the provider operations of a plan
// as a whole: a read takes one while it runs.
func (e *Engine) readPool(ctx context.Context, todo []*state.Resource, slots chan struct{}, got func(sr *state.Resource, o provider.Object, gone bool)) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var mu sync.Mutex
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(e.opts.Parallelism, len(todo)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(todo) {
					return
				}
				sr := todo[i]
				if !takeSlot(ctx, slots) {
					return
				}
				o, err := e.read(ctx, sr)
				giveSlot(slots)
				mu.Lock()
				switch {
				case err == nil:
					got(sr, o, false)
				case isNotFound(err):
					got(sr, provider.Object{}, true)
				default:
					cancel(fmt.Errorf("read %s %q (id %s): %w", sr.Type, sr.Name, sr.ProviderID, err))
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// takeSlot takes one of slots (nil: none to take), false when ctx ended
// first.
func takeSlot(ctx context.Context, slots chan struct{}) bool {
	if slots == nil {
		return true
	}
	select {
	case slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// giveSlot gives back a slot takeSlot took.
func giveSlot(slots chan struct{}) {
	if slots != nil {
		<-slots
	}
}

// readsAhead are a plan's reads made while it plans (planning.read),
// lowest level first: before each level, planResources waits only for
// the reads of that level and those below it (await), so the provider's
// reads of the levels above go on while the ones below are planned.
type readsAhead struct {
	cancel context.CancelFunc
	done   chan struct{} // closed once the reads ended

	mu    sync.Mutex
	cond  *sync.Cond
	left  map[int]int // reads not ended, by level
	objs  map[string]provider.Object
	gone  map[string]bool
	err   error
	ended bool
}

// readAhead begins reading what discover would (keep), in the order of
// level (a resource's level; math.MaxInt for one the configuration no
// longer has), and returns at once. Stop it when done.
func (e *Engine) readAhead(ctx context.Context, st *state.File, keep func(string) bool, level func(string) int, slots chan struct{}) *readsAhead {
	todo := readable(st, keep)
	levels := make(map[string]int, len(todo))
	r := &readsAhead{done: make(chan struct{}), left: map[int]int{}, objs: map[string]provider.Object{}, gone: map[string]bool{}}
	r.cond = sync.NewCond(&r.mu)
	for _, sr := range todo {
		l := level(sr.Name)
		levels[sr.Name] = l
		r.left[l]++
	}
	slices.SortFunc(todo, func(a, b *state.Resource) int {
		return cmp.Or(cmp.Compare(levels[a.Name], levels[b.Name]), strings.Compare(a.Name, b.Name))
	})
	ctx, r.cancel = context.WithCancel(ctx)
	got := func(name string, o provider.Object, gone bool) {
		if gone {
			r.gone[name] = true
		} else {
			r.objs[name] = o
		}
		r.left[levels[name]]--
	}
	go func() {
		defer close(r.done)
		bulk := map[string]provider.Object{}
		rest, err := e.bulkRead(ctx, st, todo, bulk)
		if err == nil {
			r.mu.Lock()
			for name, o := range bulk {
				got(name, o, false)
			}
			r.cond.Broadcast()
			r.mu.Unlock()
			err = e.readPool(ctx, rest, slots, func(sr *state.Resource, o provider.Object, gone bool) {
				r.mu.Lock()
				got(sr.Name, o, gone)
				r.cond.Broadcast()
				r.mu.Unlock()
			})
		}
		r.mu.Lock()
		r.err, r.ended = err, true
		r.cond.Broadcast()
		r.mu.Unlock()
	}()
	return r
}

// await waits for the reads of level and those below it, and hands over
// what was read since the last await (more than those, when reads above
// ended too); the reads' error, when one failed.
func (r *readsAhead) await(level int) (map[string]provider.Object, map[string]bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for !r.ended && r.pending(level) {
		r.cond.Wait()
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	objs, gone := r.objs, r.gone
	r.objs, r.gone = map[string]provider.Object{}, map[string]bool{}
	return objs, gone, nil
}

// pending reports whether reads of level or below have not ended (r.mu
// held).
func (r *readsAhead) pending(level int) bool {
	for l, n := range r.left {
		if l <= level && n > 0 {
			return true
		}
	}
	return false
}

// stop ends the reads still running and waits for them.
func (r *readsAhead) stop() {
	r.cancel()
	<-r.done
}
