package engine_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider"
)

// watchedProvider counts the provider operations a plan runs at once
// (reads and plans), each taking pause; the read of the object whose ID
// is waitID, when set, answers only once some resource was planned, and
// readErr, when set, is the answer to the read of failID.
type watchedProvider struct {
	provider.Provider
	pause          time.Duration
	waitID, failID string
	readErr        error

	planned       chan struct{}
	once          sync.Once
	running, most atomic.Int64
}

func newWatched(p provider.Provider, pause time.Duration) *watchedProvider {
	return &watchedProvider{Provider: p, pause: pause, planned: make(chan struct{})}
}

func (p *watchedProvider) op() func() {
	n := p.running.Add(1)
	for {
		m := p.most.Load()
		if n <= m || p.most.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(p.pause)
	return func() { p.running.Add(-1) }
}

func (p *watchedProvider) Read(ctx context.Context, typ, id string) (provider.Object, error) {
	defer p.op()()
	if id == p.failID && p.readErr != nil {
		return provider.Object{}, p.readErr
	}
	if id == p.waitID {
		select {
		case <-p.planned:
		case <-time.After(5 * time.Second):
			return provider.Object{}, errors.New("no resource was planned while this read waited")
		}
	}
	return p.Provider.Read(ctx, typ, id)
}

func (p *watchedProvider) PlanChange(ctx context.Context, req provider.ChangeRequest) (provider.ChangePlan, error) {
	defer p.op()()
	p.once.Do(func() { close(p.planned) })
	return p.Provider.PlanChange(ctx, req)
}

// parallelism sets an engine's --parallelism.
func parallelism(n int) func(*engine.Options) { return func(o *engine.Options) { o.Parallelism = n } }

// TestPlanReadsTheLevelsAboveWhileItPlansTheOnesBelow: a plan reads what
// the change touches lowest level first, and plans each level once its
// reads and those below it are done, while the reads of the levels above
// go on: web's read (level 2) answers only once sg (level 1) was planned.
// Read all before planning anything, the plan would wait on web's read
// and fail.
func TestPlanReadsTheLevelsAboveWhileItPlansTheOnesBelow(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(), parse(t, stack))
	sim, _ := w.openSim(false)
	p := newWatched(sim, 0)
	p.waitID = w.state().Resources["web"].ProviderID
	pl, err := w.simEngine(p, parallelism(10)).PlanWith(t.Context(), parse(t, variant("port: 443", "port: 8443")), engine.PlanOptions{})
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if got := strings.Join(actions(pl), ", "); got != "update SecurityGroup sg" {
		t.Errorf("actions %q, want sg updated", got)
	}
	if got := strings.Join(readNames(pl), " "); got != "net sg sub web" {
		t.Errorf("read %q, want net sg sub web", got)
	}
}

// TestPlanKeepsToItsParallelism: reads made while the levels below are
// planned and the provider's plans of those levels share --parallelism:
// never more provider operations at once than it allows.
func TestPlanKeepsToItsParallelism(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(), parse(t, stack))
	sim, _ := w.openSim(false)
	p := newWatched(sim, 10*time.Millisecond)
	_, err := w.simEngine(p, parallelism(1)).PlanWith(t.Context(), parse(t, variant("port: 443", "port: 8443")), engine.PlanOptions{Refresh: engine.RefreshAll})
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if most := p.most.Load(); most != 1 {
		t.Errorf("%d provider operations at once, want at most 1 (--parallelism 1)", most)
	}
}

// TestPlanFailsOnAReadAbove: a read of a level above that fails while
// the levels below are planned fails the plan with the read's error,
// naming the resource, and leaves no read running.
func TestPlanFailsOnAReadAbove(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(), parse(t, stack))
	sim, _ := w.openSim(false)
	p := newWatched(sim, 0)
	p.failID, p.readErr = w.state().Resources["web"].ProviderID, errors.New("503 the API is down")
	_, err := w.simEngine(p, parallelism(10)).PlanWith(t.Context(), parse(t, variant("port: 443", "port: 8443")), engine.PlanOptions{})
	if err == nil || !strings.Contains(err.Error(), `"web"`) || !strings.Contains(err.Error(), "503 the API is down") {
		t.Fatalf("plan: %v, want web's read error", err)
	}
	if n := p.running.Load(); n != 0 {
		t.Errorf("%d provider operations still running after the plan returned", n)
	}
}
