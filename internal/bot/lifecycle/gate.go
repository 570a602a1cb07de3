package lifecycle

import (
	"context"
	"errors"
	"sync"
)

// ErrRan: Run was called a second time.
var ErrRan = errors.New("run twice: a part runs once")

// Gate tracks one part's Run: begun, asked to stop, ended. The zero value
// is ready to use.
type Gate struct {
	mu      sync.Mutex
	stop    context.Context // done once Stop was called
	stopped context.CancelFunc
	done    chan struct{} // closed by Exit
	begun   bool
}

func (g *Gate) initLocked() {
	if g.stop == nil {
		g.stop, g.stopped = context.WithCancel(context.Background())
		g.done = make(chan struct{})
	}
}

// Enter begins Run: false when it must return at once instead, with
// ErrRan when Run began before, nil when Stop came first.
func (g *Gate) Enter() (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.initLocked()
	switch {
	case g.begun:
		return false, ErrRan
	case g.stop.Err() != nil:
		return false, nil
	}
	g.begun = true
	return true, nil
}

// Exit ends a Run that Enter began: Wait returns.
func (g *Gate) Exit() {
	g.mu.Lock()
	defer g.mu.Unlock()
	close(g.done)
}

// Stop asks Run to end; a Run not begun yet returns at once when it is.
func (g *Gate) Stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.initLocked()
	g.stopped()
}

// Stopping is closed once Stop was called.
func (g *Gate) Stopping() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.initLocked()
	return g.stop.Done()
}

// Bind is ctx, also cancelled by Stop.
func (g *Gate) Bind(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(g.stopContext(), cancel)
	return ctx, func() { stop(); cancel() }
}

func (g *Gate) stopContext() context.Context {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.initLocked()
	return g.stop
}

// Wait returns once a Run that began has ended, at once when none began,
// or with ctx's error when ctx ends first. Call it after Stop: a Run not
// begun can no longer begin then.
func (g *Gate) Wait(ctx context.Context) error {
	g.mu.Lock()
	g.initLocked()
	begun, done := g.begun, g.done
	g.mu.Unlock()
	if !begun {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
