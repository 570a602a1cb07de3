package bot

import (
	"context"
	"fmt"
	"sync"

	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/review"
)

// turns hands out, per key (a project/environment), turns on its state,
// first come first served. A shared turn is held by any number of jobs at
// once: the pull requests' jobs on a state with leases, whose applies wait
// only for the objects they touch. A turn alone is held by one job, while
// no other holds any: a pull request's job on a state without leases (the
// whole-state lock: http, leases: false; by then on its target's key, see
// pullJob), and a drift check, which must not see an apply halfway. A job waits for everyone who came
// before it to be served, so a turn alone is never starved by shared ones.
// Concurrency: safe for concurrent use; it starts no goroutine.
type turns struct {
	mu    sync.Mutex
	lines map[string][]*turn // key -> the holders, then the waiters, in order
}

// turn is one job's place in a key's line; ready is closed when it holds it.
type turn struct {
	alone bool
	held  bool
	ready chan struct{}
}

// take waits for a turn on key (alone, or shared with other shared ones):
// at once when no one is in the way, otherwise (calling waiting first,
// when not nil) once everyone who came before has been served and those
// in the way have given theirs back. It returns the function that gives
// the turn back (idempotent), or ctx's error when ctx ends first (leaving
// the line, or giving the turn back when it came just then).
func (ts *turns) take(ctx context.Context, key string, alone bool, waiting func()) (func(), error) {
	me := &turn{alone: alone, ready: make(chan struct{})}
	ts.mu.Lock()
	if ts.lines == nil {
		ts.lines = map[string][]*turn{}
	}
	ts.lines[key] = append(ts.lines[key], me)
	serve(ts.lines[key])
	now := me.held
	ts.mu.Unlock()
	if !now && waiting != nil {
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

// serve gives their turn to the waiters at the front of line that can
// hold it now: the first of all, and each next one while it and every one
// before it are shared.
func serve(line []*turn) {
	for i, t := range line {
		if i > 0 && (t.alone || line[i-1].alone) {
			return
		}
		if !t.held {
			t.held = true
			close(t.ready)
		}
	}
}

// leave takes me out of key's line (holder or waiter) and serves those
// who can go on.
func (ts *turns) leave(key string, me *turn) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	line := ts.lines[key]
	for i, t := range line {
		if t == me {
			line = append(line[:i:i], line[i+1:]...)
			break
		}
	}
	if len(line) == 0 {
		delete(ts.lines, key)
		return
	}
	ts.lines[key] = line
	serve(line)
}

// inTurn opens workspaces with open and waits for a turn on target t's
// state before handing the workspace over, giving it back when the
// workspace is closed: shared for a pull request's job on a state with
// leases (the pull requests' jobs run at once, see pullKey), so that a
// drift check (alone says so) waits for them and they for it; alone on a
// state without leases, whose jobs the queue already runs one at a time
// on t's key (pullJob), so that such a turn is normally free at once.
func (rt *router) inTurn(ev event, t settings.Target, alone bool, open review.Opener) review.Opener {
	key := targetKey(ev, t)
	return func(ctx context.Context, cfg *config.Config, env string) (*review.Workspace, error) {
		ws, err := open(ctx, cfg, env)
		if err != nil || ws == nil || ws.Engine == nil {
			return ws, err
		}
		give, err := rt.turns.take(ctx, key, alone || !ws.Engine.Leased(), func() {
			rt.log.Info("waiting for the turn on the state",
				"repo", ev.fullName(), "pr", ev.number, "target", t.Label(), "leased", ws.Engine.Leased())
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
