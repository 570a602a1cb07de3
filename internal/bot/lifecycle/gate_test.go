package lifecycle_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kyku/action/internal/bot/lifecycle"
)

// part is the smallest part: Run waits until Shutdown, then takes a second
// to stop.
type part struct{ gate lifecycle.Gate }

func (p *part) Run(ctx context.Context) error {
	ok, err := p.gate.Enter()
	if !ok {
		return err
	}
	defer p.gate.Exit()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-p.gate.Stopping():
	}
	time.Sleep(time.Second)
	return nil
}

func (p *part) Shutdown(ctx context.Context) error {
	p.gate.Stop()
	return p.gate.Wait(ctx)
}

func TestGate(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, p *part)
	}{
		{"shutdown waits for run to return", func(t *testing.T, p *part) {
			done := make(chan error, 1)
			go func() { done <- p.Run(t.Context()) }()
			synctest.Wait()
			start := time.Now()
			if err := p.Shutdown(t.Context()); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d != time.Second {
				t.Errorf("Shutdown returned after %v, want when Run returned (1s)", d)
			}
			if err := <-done; err != nil {
				t.Errorf("Run = %v", err)
			}
		}},
		{"shutdown before run: run returns at once", func(t *testing.T, p *part) {
			if err := p.Shutdown(t.Context()); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if err := p.Run(t.Context()); err != nil || time.Since(start) != 0 {
				t.Errorf("Run after Shutdown = %v after %v, want nil at once", err, time.Since(start))
			}
		}},
		{"shutdown's context ends first", func(t *testing.T, p *part) {
			go func() { _ = p.Run(t.Context()) }()
			synctest.Wait()
			ctx, cancel := context.WithTimeout(t.Context(), time.Millisecond)
			defer cancel()
			if err := p.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Shutdown = %v, want its deadline", err)
			}
			if err := p.Shutdown(t.Context()); err != nil { // and then waits for Run
				t.Error(err)
			}
		}},
		{"run twice", func(t *testing.T, p *part) {
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- p.Run(ctx) }()
			synctest.Wait()
			if err := p.Run(ctx); !errors.Is(err, lifecycle.ErrRan) {
				t.Errorf("second Run = %v, want ErrRan", err)
			}
			cancel() // the first Run stops as its context ends
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("first Run = %v", err)
			}
		}},
		{"bind ends with stop", func(t *testing.T, p *part) {
			ctx, cancel := p.gate.Bind(t.Context())
			defer cancel()
			p.gate.Stop()
			<-ctx.Done()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The bubble fails the test if a goroutine is left blocked.
			synctest.Test(t, func(t *testing.T) { tc.run(t, &part{}) })
		})
	}
}
