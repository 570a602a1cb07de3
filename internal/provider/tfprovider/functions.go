package tfprovider

import (
	"context"
	"fmt"
	"sync"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfschema"
)

// Functions serves the functions a provider defines (a configuration
// calls them provider::NAME::FUNCTION) from a process of their own,
// started at the first call and never configured: OpenTofu calls them on
// a provider no configuration reaches, so they are known while the
// configuration is read, before any provider is configured. Safe for
// concurrent use.
type Functions struct {
	cfg Config

	mu      sync.Mutex
	started bool
	pl      *tfplugin.Provider
	err     error // of the start, kept
	closed  bool
}

// Functions is a server of p's functions, not started.
func (p *Provider) Functions() *Functions { return &Functions{cfg: p.cfg} }

// start starts the process once.
func (f *Functions) start(ctx context.Context) (*tfplugin.Provider, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, fmt.Errorf("provider %s: closed", f.cfg.Name)
	}
	if f.started {
		return f.pl, f.err
	}
	cfg := f.cfg.plugin()
	cfg.Keeper = nil // it makes nothing
	pl, err := tfplugin.Start(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("provider %s: %w", f.cfg.Name, err)
		}
		f.started, f.err = true, fmt.Errorf("provider %s: %w", f.cfg.Name, err)
		return nil, f.err
	}
	if f.cfg.OnStart != nil {
		f.cfg.OnStart(pl.Pid())
	}
	f.started, f.pl = true, pl
	return pl, nil
}

// List is the provider's functions by name.
func (f *Functions) List(ctx context.Context) (map[string]*tfschema.Function, error) {
	pl, err := f.start(ctx)
	if err != nil {
		return nil, err
	}
	return pl.Functions(ctx)
}

// Call calls function name with args (tfplugin.Provider.CallFunction).
func (f *Functions) Call(ctx context.Context, name string, args []cty.Value) (cty.Value, error) {
	pl, err := f.start(ctx)
	if err != nil {
		return cty.NilVal, err
	}
	return pl.CallFunction(ctx, name, args)
}

// Close stops the process, if it started. Safe to call more than once.
func (f *Functions) Close() {
	f.mu.Lock()
	pl := f.pl
	f.pl, f.closed = nil, true
	f.mu.Unlock()
	if pl != nil {
		pl.Close()
	}
}

// FunctionsStarted are the providers a run started for their functions,
// to stop when it ends. Safe for concurrent use.
type FunctionsStarted struct {
	mu   sync.Mutex
	list []*Functions
}

// Add keeps f to stop.
func (s *FunctionsStarted) Add(f *Functions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list = append(s.list, f)
}

// Close stops them.
func (s *FunctionsStarted) Close() {
	s.mu.Lock()
	list := s.list
	s.list = nil
	s.mu.Unlock()
	for _, f := range list {
		f.Close()
	}
}
