package hcloudtest

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ref names a resource an action touches.
type ref struct {
	ID   int64
	Type string // "server", "network", "firewall", "load_balancer"
}

func (r ref) key() string { return fmt.Sprintf("%s/%d", r.Type, r.ID) }

// action is an asynchronous operation: "running" until it has been polled
// left more times or the clock passes due (work goes on in the background,
// a second per poll), then apply runs (its effect) and the action ends
// "success" or "error". The resources it touches are locked while it runs.
type action struct {
	id                int64
	command           string
	status            string
	progress          int
	started, finished string
	resources         []ref
	left              int
	due               time.Time
	apply             func() *apiError
	err               *apiError
}

// start begins an action on resources, or answers "locked" when one of
// them is busy with another action.
func (c *Cloud) start(command string, apply func() *apiError, resources ...ref) (*action, *apiError) {
	for _, r := range resources {
		if other, ok := c.busy[r.key()]; ok {
			return nil, fail("locked", "%s %d is locked by action %d (%s)", r.Type, r.ID, other, c.actions[other].command)
		}
	}
	a := &action{
		id: c.id(), command: command, status: "running", started: c.timestamp(),
		resources: resources, left: c.opts.ActionPolls, apply: apply,
		due: c.opts.Now().Add(time.Duration(c.opts.ActionPolls) * time.Second),
	}
	c.actions[a.id] = a
	for _, r := range resources {
		c.busy[r.key()] = a.id
	}
	return a, nil
}

// tick advances a running action by one poll and finishes it when due.
func (c *Cloud) tick(a *action) {
	if a.status != "running" {
		return
	}
	a.left--
	a.progress = min(99, a.progress+100/max(1, c.opts.ActionPolls))
	if a.left > 0 {
		return
	}
	c.finish(a)
}

// finish ends a running action: its effect applies, its resources unlock.
func (c *Cloud) finish(a *action) {
	a.status, a.progress, a.finished = "success", 100, c.timestamp()
	if a.apply != nil {
		if e := a.apply(); e != nil {
			a.status, a.err = "error", e
		}
	}
	for _, r := range a.resources {
		if c.busy[r.key()] == a.id {
			delete(c.busy, r.key())
		}
	}
}

// background finishes the running actions whose time has come, and moves
// starting servers whose boot time has passed to running.
func (c *Cloud) background() {
	now := c.opts.Now()
	for _, a := range c.actions {
		if a.status == "running" && !now.Before(a.due) {
			c.finish(a)
		}
	}
	for _, s := range c.st.Servers {
		if s.Status == "starting" && !now.Before(s.bootDue) {
			s.Status = "running"
		}
	}
	kept := c.leaving[:0]
	for _, l := range c.leaving {
		if now.Before(l.due) {
			kept = append(kept, l)
			continue
		}
		if f := c.st.Firewalls[l.firewall]; f != nil {
			f.AppliedTo = slices.DeleteFunc(f.AppliedTo, func(id int64) bool { return id == l.server })
		}
	}
	c.leaving = kept
}

// release unlocks a deleted resource.
func (c *Cloud) release(res ref) {
	delete(c.busy, res.key())
}

func (a *action) wire() map[string]any {
	var errBody any
	if a.err != nil {
		errBody = map[string]any{"code": a.err.code, "message": a.err.message}
	}
	var finished any
	if a.finished != "" {
		finished = a.finished
	}
	res := make([]any, 0, len(a.resources))
	for _, r := range a.resources {
		res = append(res, map[string]any{"id": r.ID, "type": r.Type})
	}
	return map[string]any{
		"id": a.id, "command": a.command, "status": a.status, "progress": a.progress,
		"started": a.started, "finished": finished, "resources": res, "error": errBody,
	}
}

func (c *Cloud) actionRoutes() {
	// Hetzner Cloud API reference, Actions: Get multiple Actions — the
	// actions named by one or more id parameters (required since
	// 2025-01-30: a listing without id is refused), optionally sorted
	// (sort=id, status, …), paginated. Each running one listed is one
	// poll of it, as a GET of it alone is.
	c.handle("GET /actions", func(r *http.Request, _ []byte) (int, any, *apiError) {
		q := r.URL.Query()
		if len(q["id"]) == 0 {
			return 0, nil, invalid("id", "at least one action ID is required")
		}
		var list []*action
		seen := map[int64]bool{}
		for _, s := range q["id"] {
			id, err := strconv.ParseInt(s, 10, 64)
			if err != nil || id <= 0 {
				return 0, nil, invalid("id", "must be a positive integer, got %q", s)
			}
			if a := c.actions[id]; a != nil && !seen[id] {
				seen[id] = true
				list = append(list, a)
			}
		}
		for _, s := range q["sort"] {
			if f, _, _ := strings.Cut(s, ":"); f != "id" && f != "command" && f != "status" && f != "started" && f != "finished" {
				return 0, nil, invalid("sort", "cannot sort by %q", s)
			}
		}
		for _, a := range list {
			c.tick(a)
		}
		sort.SliceStable(list, func(i, j int) bool { return list[i].id < list[j].id })
		pg, meta, e := page(r, list)
		if e != nil {
			return 0, nil, e
		}
		out := make([]any, 0, len(pg))
		for _, a := range pg {
			out = append(out, a.wire())
		}
		return 200, map[string]any{"actions": out, "meta": meta}, nil
	})
	c.handle("GET /actions/{id}", func(r *http.Request, _ []byte) (int, any, *apiError) {
		id, e := pathID(r)
		if e != nil {
			return 0, nil, e
		}
		a := c.actions[id]
		if a == nil {
			return 0, nil, notFound("action", id)
		}
		c.tick(a)
		return 200, map[string]any{"action": a.wire()}, nil
	})
}

// one wraps a single action as the {"action": …} answer.
func one(a *action) map[string]any { return map[string]any{"action": a.wire()} }
