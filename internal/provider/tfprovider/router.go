package tfprovider

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

// Router is the one provider the engine drives when a configuration uses
// Terraform providers: it routes every call by the resource type, a type
// `<name>_…` to the Terraform provider called name, every other type to
// base (Kyku's own provider: sim, aws, hetzner). Calls about many types
// (checks, bulk reads) are split among them. Its name is base's: a plan
// names the provider of Kyku's types. A provider served in process
// (OpenTofu's built-in one: Serve) takes the types of its prefix.
type Router struct {
	base    provider.Provider
	plugins map[string]*Provider
	inProc  map[string]provider.Provider
}

// NewRouter routes to base and to plugins (by their local names).
func NewRouter(base provider.Provider, plugins ...*Provider) *Router {
	r := &Router{base: base, plugins: make(map[string]*Provider, len(plugins))}
	for _, p := range plugins {
		r.plugins[p.Name()] = p
	}
	return r
}

var _ provider.Provider = (*Router)(nil)

// Serve routes the types `<prefix>_…` to p, a provider served in process
// (package builtin), before any plugin of that name. The Router neither
// stops nor closes p: it belongs to whoever built it. Call it before the
// Router is used.
func (r *Router) Serve(prefix string, p provider.Provider) *Router {
	if r.inProc == nil {
		r.inProc = map[string]provider.Provider{}
	}
	r.inProc[prefix] = p
	return r
}

// inProcess is the provider served in process for typ, or nil.
func (r *Router) inProcess(typ string) provider.Provider {
	name, _, ok := strings.Cut(typ, "_")
	if !ok {
		return nil
	}
	return r.inProc[name]
}

// plugin is the Terraform provider of typ, or nil for Kyku's types.
func (r *Router) plugin(typ string) *Provider {
	name, _, ok := strings.Cut(typ, "_")
	if !ok {
		return nil
	}
	return r.plugins[name]
}

// Base is the provider of Kyku's own types.
func (r *Router) Base() provider.Provider { return r.base }

// Plugins are the Terraform providers, by local name.
func (r *Router) Plugins() map[string]*Provider { return r.plugins }

// noProvider refuses a type that looks like a Terraform provider's whose
// provider is not configured (a resource in state after its provider was
// removed from the configuration).
func (r *Router) noProvider(typ string) error {
	name, _, _ := strings.Cut(typ, "_")
	return fmt.Errorf("%s is a type of provider %q, which is not among the providers this run starts: they are the ones declared under providers: (in a pull request's plan, the default branch's: a provider it adds runs once it is merged)", typ, name)
}

// route is the Terraform provider of typ, nil for base's types and those
// served in process: anything that is not a declared provider's, except
// what looks like a provider's type (a lower-case prefix and "_"), which
// is refused by name.
func (r *Router) route(typ string) (*Provider, error) {
	if r.inProcess(typ) != nil {
		return nil, nil
	}
	if p := r.plugin(typ); p != nil {
		return p, nil
	}
	if name, _, ok := strings.Cut(typ, "_"); ok && name == strings.ToLower(name) && name != "" {
		return nil, r.noProvider(typ)
	}
	return nil, nil
}

// to is the provider that serves typ: in process, its Terraform
// provider, or base.
func (r *Router) to(typ string) (provider.Provider, error) {
	if ip := r.inProcess(typ); ip != nil {
		return ip, nil
	}
	p, err := r.route(typ)
	switch {
	case err != nil:
		return nil, err
	case p != nil:
		return p, nil
	}
	return r.base, nil
}

// ownState reports whether typ is a Terraform provider's, served in
// process or not (or looks like one: refused by the calls that follow).
func (r *Router) ownState(typ string) bool {
	if ip := r.inProcess(typ); ip != nil {
		return ip.Schema(typ).OwnState
	}
	p, err := r.route(typ)
	return p != nil || err != nil
}

// Close stops every Terraform provider's process, at once, and waits for
// them all. Base belongs to whoever built it.
func (r *Router) Close() error {
	var wg sync.WaitGroup
	for _, p := range r.plugins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Close()
		}()
	}
	wg.Wait()
	return nil
}

// Stop asks base and every running Terraform provider to end their calls
// in flight (an interrupted apply), at once.
func (r *Router) Stop(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, p := range r.plugins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = p.Stop(ctx)
		}()
	}
	err := r.base.Stop(ctx)
	wg.Wait()
	return err
}

func (r *Router) Name() string { return r.base.Name() }

// Schema is what the provider of typ says of it; a type of a provider not
// configured is that provider's (its prefix), with its own state.
func (r *Router) Schema(typ string) provider.TypeSchema {
	if ip := r.inProcess(typ); ip != nil {
		return ip.Schema(typ)
	}
	p, err := r.route(typ)
	switch {
	case p != nil:
		return p.Schema(typ)
	case err != nil:
		name, _, _ := strings.Cut(typ, "_")
		return provider.TypeSchema{Provider: name, OwnState: true}
	}
	return r.base.Schema(typ)
}

func (r *Router) OwnType(ctx context.Context, typ string) (string, error) {
	p, err := r.to(typ)
	if err != nil {
		return "", err
	}
	return p.OwnType(ctx, typ)
}

// Empties is what every top-level attribute and nested block of typ
// holds when unset (Provider.Empties); nil for a type not of a started
// Terraform provider.
func (r *Router) Empties(typ string) map[string]any {
	p, err := r.to(typ)
	if err != nil {
		return nil
	}
	return p.Empties(typ)
}

func (r *Router) WriteOnly(ctx context.Context, typ string) ([]string, error) {
	p, err := r.to(typ)
	if err != nil {
		return nil, err
	}
	return p.WriteOnly(ctx, typ)
}

func (r *Router) AttributeType(ctx context.Context, typ string, data bool, attr string, path []value.Step) (any, error) {
	p, err := r.to(typ)
	if err != nil {
		return nil, err
	}
	return p.AttributeType(ctx, typ, data, attr, path)
}

func (r *Router) Zones(ctx context.Context) ([]string, error) { return r.base.Zones(ctx) }
