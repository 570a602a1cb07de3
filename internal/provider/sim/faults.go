package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/kyku/action/internal/provider"
)

// InjectedError is the permanent failure a KYKU_SIM_FAIL rule causes.
type InjectedError struct {
	Rule FailRule
	Op   Op
	Type string
	Name string // Kyku name
}

func (e *InjectedError) Error() string {
	return fmt.Sprintf("sim: %s %s %q: injected failure (%s=%s)", e.Op, e.Type, e.Name, EnvFail, e.Rule)
}

// injected returns the permanent failure of the first matching rule.
func (p *Provider) injected(op Op, typ, name string) error {
	for _, r := range p.opts.Fail {
		if r.matches(op, typ, name) {
			return &InjectedError{Rule: r, Op: op, Type: typ, Name: name}
		}
	}
	return nil
}

// fault is when an injected transient failure strikes.
type fault int

const (
	noFault fault = iota
	faultBefore
	faultAfter // the side effect happened, the response was "lost"
)

// draw decides whether this call fails transiently, and when; lossy calls
// (Create, Delete) lose about half their failures after the side effect.
func (p *Provider) draw(lossy bool) fault {
	if p.opts.FailRate <= 0 {
		return noFault
	}
	p.rngMu.Lock()
	defer p.rngMu.Unlock()
	if p.rng.Float64() >= p.opts.FailRate {
		return noFault
	}
	if lossy && p.rng.IntN(2) == 1 {
		return faultAfter
	}
	return faultBefore
}

func transient(op Op, typ, what string, f fault) error {
	when := "before it happened"
	if f == faultAfter {
		when = "after it happened; the response was lost"
	}
	return provider.Transient(fmt.Errorf("sim: %s %s %s: injected transient failure, %s (%s)", op, typ, what, when, EnvFailRate))
}

// wait starts every call: the context check, then the simulated latency.
// With zero latency it neither draws nor allocates a timer.
func (p *Provider) wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	d := p.latency()
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("sim: %w", ctx.Err())
	}
}

// latency draws the duration of one call's simulated latency.
func (p *Provider) latency() time.Duration {
	d := p.opts.LatencyMin
	if p.opts.LatencyMax > p.opts.LatencyMin {
		p.rngMu.Lock()
		d += time.Duration(p.rng.Int64N(int64(p.opts.LatencyMax-p.opts.LatencyMin) + 1))
		p.rngMu.Unlock()
	}
	return d
}
