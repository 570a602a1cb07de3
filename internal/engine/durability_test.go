package engine_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
)

// durableSpy records which resources' journal entries are durable (their
// Append returned).
type durableSpy struct {
	statemgr.Backend
	mu      sync.Mutex
	durable map[string]bool
	appends int
}

func (d *durableSpy) Append(ctx context.Context, e state.Entry) error {
	if err := d.Backend.Append(ctx, e); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.durable[e.Name] = true
	d.appends++
	return nil
}

// No change starts before every change it depends on is durable in the
// journal, although workers move on while a finished change is committed.
func TestDependentStartsOnlyAfterDependencyIsDurable(t *testing.T) {
	dir := t.TempDir()
	p, err := sim.New(sim.Options{Dir: filepath.Join(dir, "sim"), LatencyMin: 0, LatencyMax: 2 * time.Millisecond, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	spy := &durableSpy{Backend: local.New(filepath.Join(dir, "state"), "", local.Options{}), durable: map[string]bool{}}
	cfg := layered(t, 200)
	var mu sync.Mutex
	var early []string
	hook := hookFunc(func(ev progress.Event) {
		if ev.Kind != progress.Started {
			return
		}
		r := cfg.Resource(ev.Name)
		spy.mu.Lock()
		defer spy.mu.Unlock()
		for _, ref := range dependencies(r.Properties) {
			if !spy.durable[ref] {
				mu.Lock()
				early = append(early, ev.Name+" before "+ref)
				mu.Unlock()
			}
		}
	})
	e := engine.New(p, spy, engine.Options{DeployPrefix: "d", Parallelism: 10, Hook: hook})
	res, err := e.Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil || res.Err() != nil {
		t.Fatalf("apply: %v / %v", err, res.Err())
	}
	if len(early) > 0 {
		t.Errorf("changes started before a dependency was durable: %v", early)
	}
	if spy.appends != 200 {
		t.Errorf("%d journal appends, want 200", spy.appends)
	}
}

// dependencies lists the resources a layered config's properties reference.
func dependencies(props map[string]any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if len(x) > 3 && x[:2] == "${" && x[len(x)-1] == '}' {
				out = append(out, x[2:len(x)-1])
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, v := range props {
		walk(v)
	}
	return out
}
