package tfprovider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfschema"
)

// A provider process can grow with every call it serves and give nothing
// back until it ends: terraform-plugin-framework keeps each call's
// context (its loggers, its gRPC stream) until StopProvider, about 13 KB
// a call (docs/benchmarks-tools.md), so the null provider passes 100 MB
// in an apply of 1,000 resources. OpenTofu starts a new process for each
// walk of its graph; Kyku walks once, and instead replaces a process that
// has grown to RenewGrowth times the first one's size once configured,
// between calls: the next call starts and configures a new process (with
// the schema the first one returned, when the provider says it need not
// be asked again) and goes to it, and the old process is shut down once
// its calls in flight have returned, never during one. No call waits for
// a slow call of the process being replaced.
//
// The default factor, 1.75, weighs a start (about 40 ms of CPU for the
// null provider and Kyku together) against growth (about 27 MB in 1,000
// calls of the null provider); by default a process must also have grown
// by defaultMinGrowth, about what OpenTofu's own process of such a
// provider grows by in one walk of 5,000 resources: a 20 MB provider
// would otherwise be replaced every few hundred calls (35 starts in an
// apply of 5,000 null_resources, about 1 s of CPU; 4 with the floor). A
// factor set by the user is taken alone. A process serves renewMinCalls
// calls at least, so a provider whose working size is past the factor
// costs one start in that many calls at most. A replacement that cannot start or
// be configured is given up (the process it was to replace keeps
// serving, and no other is tried), and a process that has ended
// (crashed) is not replaced: its calls fail as they did. Sizes are read
// from /proc, so only Linux replaces processes for their growth.
//
// A journal keeper (Config.Keeper) is a process of its own beside the
// provider's, with its start and its relay to pay for, and only a create
// whose answer is kept needs it: processes are launched without one
// until the first such create, which replaces the process then serving
// by one the keeper launched, as every later one is. A plan starts no
// keeper, and an apply none for the processes that only planned.
const (
	defaultGrowth = 1.75
	// defaultMinGrowth is how many bytes a process must have grown by
	// since configured, beside the default factor, to be replaced.
	defaultMinGrowth = 128 << 20
	// renewCheckEvery is how many calls pass between two reads of the
	// process's size.
	renewCheckEvery = 16
	// renewMinCalls is how many calls a process serves at least.
	renewMinCalls = 200
)

// process is one provider process and its calls.
type process struct {
	pl       *tfplugin.Provider
	inFlight int  // calls not yet returned
	calls    int  // calls served
	stopping int  // Stop calls in flight: a replaced process is shut down after them
	kept     bool // launched by the journal keeper
}

// renewal is a Provider's state of replacing its process (under its mu).
type renewal struct {
	baseline int64 // the first process's size once configured (bytes; 0: unknown)
	due      bool  // the current process is to be replaced at the next call
	off      bool  // a replacement failed: none is tried again
	count    int   // processes replaced
	// retiring are replaced processes with calls still in flight, shut
	// down (closing) when the last returns.
	retiring []*process
	closing  sync.WaitGroup
}

// acquire returns the current process for one call, its schema, and the
// release the caller calls once the call has returned. The process is
// started at the first call and replaced at a call after it grew too
// large. With kept, the call is a create whose answer is kept: the
// process must go through the journal keeper, and one that does not is
// replaced first (renew.go).
func (p *Provider) acquire(ctx context.Context, kept bool) (*tfplugin.Provider, *tfschema.ProviderSchema, func(), error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	kept = kept && p.pluginConfig().KeepsAnswers()
	if kept {
		p.keep = true
	}
	if err := p.ensureLocked(ctx); err != nil {
		return nil, nil, nil, err
	}
	if p.renewal.due || kept && !p.current.kept {
		err := p.renewLocked(ctx)
		if kept && !p.current.kept {
			if err == nil {
				err = errors.New("the process ended")
			}
			return nil, nil, nil, fmt.Errorf("provider %s: start a process with its journal keeper, to keep the create's answer: %w", p.cfg.Name, err)
		}
	}
	pr := p.current
	pr.inFlight++
	var once sync.Once
	return pr.pl, p.schema, func() { once.Do(func() { p.release(pr) }) }, nil
}

// release ends one call of pr.
func (p *Provider) release(pr *process) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr.inFlight--
	pr.calls++
	switch {
	case pr == p.current:
		if !p.renewal.due && !p.renewal.off && !p.closed {
			p.renewal.due = p.renewDue(pr)
		}
	case pr.inFlight == 0 && pr.stopping == 0 && !p.closed:
		p.retire(pr)
	}
}

// renewDue reports whether pr should be replaced now.
func (p *Provider) renewDue(pr *process) bool {
	if p.cfg.RenewAfter > 0 && pr.calls >= p.cfg.RenewAfter {
		return true
	}
	if p.cfg.RenewGrowth < 0 || pr.calls%renewCheckEvery != 0 {
		return false
	}
	size, ok := pr.pl.Resident()
	if !ok {
		return false
	}
	due, baseline := grown(size, p.renewal.baseline, pr.calls, p.cfg.RenewGrowth)
	p.renewal.baseline = baseline
	return due
}

// grown decides on a process of size bytes after calls calls, against
// baseline (the first process's size once configured; 0: unknown), for a
// growth factor (0: defaultGrowth, and defaultMinGrowth bytes at least):
// whether it is to be replaced, and the baseline from now on (size, when
// it was unknown).
func grown(size, baseline int64, calls int, growth float64) (bool, int64) {
	if baseline <= 0 {
		return false, size
	}
	if calls < renewMinCalls {
		return false, baseline
	}
	if growth == 0 {
		return float64(size) > defaultGrowth*float64(baseline) && size-baseline > defaultMinGrowth, baseline
	}
	return float64(size) > growth*float64(baseline), baseline
}

// renewLocked replaces the current process by a new one (p.mu held):
// later calls go to the new one, and the old one is shut down once its
// calls in flight have returned. It returns why the new one could not
// start, if so.
func (p *Provider) renewLocked(ctx context.Context) error {
	old := p.current
	p.renewal.due = false
	if old.pl.Exited() {
		return nil // crashed: its calls report it
	}
	pl, _, err := p.launch(ctx, old.pl)
	if err != nil {
		if ctx.Err() == nil {
			p.renewal.off = true
		} else {
			p.renewal.due = true
		}
		return err
	}
	p.current = &process{pl: pl, kept: p.keep && p.pluginConfig().KeepsAnswers()}
	p.renewal.count++
	if old.inFlight == 0 && old.stopping == 0 {
		p.retire(old)
		return nil
	}
	p.renewal.retiring = append(p.renewal.retiring, old)
	return nil
}

// stopped ends one Stop call to pr: a replaced process left with no call
// in flight is shut down then (its last call may have returned while
// Stop reached it: shutting it down then would cut Stop's answer short).
func (p *Provider) stopped(pr *process) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr.stopping--
	if pr != p.current && pr.inFlight == 0 && pr.stopping == 0 && !p.closed && slices.Contains(p.renewal.retiring, pr) {
		p.retire(pr)
	}
}

// retire shuts a replaced process down in the background (p.mu held);
// Close waits for it.
func (p *Provider) retire(pr *process) {
	for i, r := range p.renewal.retiring {
		if r == pr {
			p.renewal.retiring = append(p.renewal.retiring[:i], p.renewal.retiring[i+1:]...)
			break
		}
	}
	p.renewal.closing.Add(1)
	go func() {
		defer p.renewal.closing.Done()
		pr.pl.Close()
	}()
}

// Renewals is how many times the provider's process was replaced.
func (p *Provider) Renewals() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.renewal.count
}
