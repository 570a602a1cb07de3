package bot

import (
	"context"
	"fmt"
	"sync"

	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/review"
)

// turns hands out, per key, one turn at a time, first come first served:
// the jobs of different pull requests on a project/environment whose state
// has no leases (the whole-state lock: http, leases: false) run at once
// from the queue's point of view, and wait here, in the order they came,
// instead of racing into the state lock (whose timeout would refuse one).
// Concurrency: safe for concurrent use; it starts no goroutine.
type turns struct {
	mu    sync.Mutex
	lines map[string][]*turn // key -> the holder, then the waiters in order
}

// turn is one job's place in a key's line; ready is closed when it is first.
type turn struct{ ready chan struct{} }

// take waits for key's turn: at once when no one holds it, otherwise
// (calling waiting first, when not nil) after everyone who came before has
// given it back. It returns the function that gives it back (idempotent),
// or ctx's error when ctx ends first (leaving the line, or passing the
// turn on when it came just then).
func (ts *turns) take(ctx context.Context, key string, waiting func()) (func(), error) {
	me := &turn{ready: make(chan struct{})}
	ts.mu.Lock()
	if ts.lines == nil {
		ts.lines = map[string][]*turn{}
	}
	line := append(ts.lines[key], me)
	ts.lines[key] = line
	first := len(line) == 1
	if first {
		close(me.ready)
	}
	ts.mu.Unlock()
	if !first && waiting != nil {
		waiting()
	}
	done := sync.OnceFunc(func() { ts.leave(key, me) })
	select {
	case <-me.ready:
		return done, nil
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
}

// leave takes me out of key's line; when me held the turn, the next in
// line gets it.
func (ts *turns) leave(key string, me *turn) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	line := ts.lines[key]
	for i, t := range line {
		if t != me {
			continue
		}
		line = append(line[:i:i], line[i+1:]...)
		if i == 0 && len(line) > 0 {
			close(line[0].ready)
		}
		break
	}
	if len(line) == 0 {
		delete(ts.lines, key)
		return
	}
	ts.lines[key] = line
}

// inTurn opens workspaces with open and, for a state without leases (the
// whole-state lock), waits for target t's turn before handing the
// workspace over, giving it back when the workspace is closed: the pull
// requests' jobs run at once (pullKey) yet take such a state one at a
// time, in the order they reached it. A leased state is used at once:
// its applies wait only for the objects they touch.
func (rt *router) inTurn(ev event, t settings.Target, open review.Opener) review.Opener {
	key := targetKey(ev, t)
	return func(ctx context.Context, cfg *config.Config, env string) (*review.Workspace, error) {
		ws, err := open(ctx, cfg, env)
		if err != nil || ws == nil || ws.Engine == nil || ws.Engine.Leased() {
			return ws, err
		}
		give, err := rt.turns.take(ctx, key, func() {
			rt.log.Info("waiting for the turn of a state without leases",
				"repo", ev.fullName(), "pr", ev.number, "target", t.Label())
		})
		if err != nil {
			if ws.Close != nil {
				_ = ws.Close()
			}
			return nil, fmt.Errorf("wait for %s's turn on its state: %w", t.Label(), err)
		}
		closeWS := ws.Close
		ws.Close = func() error {
			defer give()
			if closeWS != nil {
				return closeWS()
			}
			return nil
		}
		return ws, nil
	}
}
