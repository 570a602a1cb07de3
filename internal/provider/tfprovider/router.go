package tfprovider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/suggest"
	"github.com/kyku/action/internal/tfschema"
	"github.com/kyku/action/internal/value"
)

// Router is the one provider the engine drives when a configuration uses
// Terraform providers: it routes every call by the resource type, a type
// `<name>_…` to the Terraform provider called name, every other type to
// base (Kyku's own provider: sim, aws, hetzner). It implements every
// optional interface of package provider, each answered by the provider
// of the type (or as a provider without it would be: no rules, no bulk
// read, no renames). Its name is base's: a plan names the provider of
// Kyku's types.
type Router struct {
	base    provider.Provider
	plugins map[string]*Provider
}

// NewRouter routes to base and to plugins (by their local names).
func NewRouter(base provider.Provider, plugins ...*Provider) *Router {
	r := &Router{base: base, plugins: make(map[string]*Provider, len(plugins))}
	for _, p := range plugins {
		r.plugins[p.Name()] = p
	}
	return r
}

var (
	_ provider.Provider        = (*Router)(nil)
	_ provider.ResourceChecker = (*Router)(nil)
	_ provider.CloudChecker    = (*Router)(nil)
	_ provider.ReplaceRules    = (*Router)(nil)
	_ provider.ChangePlanner   = (*Router)(nil)
	_ provider.NameChecker     = (*Router)(nil)
	_ provider.Renamer         = (*Router)(nil)
	_ provider.BulkReader      = (*Router)(nil)
	_ provider.StoredReader    = (*Router)(nil)
	_ provider.StoredDeleter   = (*Router)(nil)
	_ provider.Importer        = (*Router)(nil)
	_ provider.DataReader      = (*Router)(nil)
	_ provider.AttributeTyper  = (*Router)(nil)
	_ provider.ConfigValidator = (*Router)(nil)
	_ provider.WriteOnlyLister = (*Router)(nil)
	_ provider.SelfPlanner     = (*Router)(nil)
	_ provider.Stopper         = (*Router)(nil)
)

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

// Close stops every Terraform provider's process, at once, and waits for
// them all.
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

// Stop asks every running Terraform provider to end its calls in flight
// (an interrupted apply), at once.
func (r *Router) Stop(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, p := range r.plugins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = p.Stop(ctx)
		}()
	}
	wg.Wait()
	return nil
}

// noProvider refuses a type that looks like a Terraform provider's whose
// provider is not configured (a resource in state after its provider was
// removed from the configuration).
func (r *Router) noProvider(typ string) error {
	name, _, _ := strings.Cut(typ, "_")
	return fmt.Errorf("%s is a type of provider %q, which is not among the providers this run starts: they are the ones declared under providers: (in a pull request's plan, the default branch's: a provider it adds runs once it is merged)", typ, name)
}

// route is the Terraform provider of typ, nil for base's types: anything
// that is not a declared provider's, except what looks like a provider's
// type (a lower-case prefix and "_"), which is refused by name.
func (r *Router) route(typ string) (*Provider, error) {
	if p := r.plugin(typ); p != nil {
		return p, nil
	}
	if name, _, ok := strings.Cut(typ, "_"); ok && name == strings.ToLower(name) && name != "" {
		return nil, r.noProvider(typ)
	}
	return nil, nil
}

func (r *Router) Name() string { return r.base.Name() }

func (r *Router) Zones(ctx context.Context) ([]string, error) { return r.base.Zones(ctx) }

func (r *Router) Create(ctx context.Context, res provider.Resource) (provider.Object, error) {
	p, err := r.route(res.Type)
	switch {
	case err != nil:
		return provider.Object{}, err
	case p != nil:
		return p.Create(ctx, res)
	}
	return r.base.Create(ctx, res)
}

func (r *Router) Read(ctx context.Context, typ, id string) (provider.Object, error) {
	p, err := r.route(typ)
	switch {
	case err != nil:
		return provider.Object{}, err
	case p != nil:
		return p.Read(ctx, typ, id)
	}
	return r.base.Read(ctx, typ, id)
}

func (r *Router) Update(ctx context.Context, id string, res provider.Resource) (provider.Object, error) {
	p, err := r.route(res.Type)
	switch {
	case err != nil:
		return provider.Object{}, err
	case p != nil:
		return p.Update(ctx, id, res)
	}
	return r.base.Update(ctx, id, res)
}

func (r *Router) Delete(ctx context.Context, typ, id string) error {
	p, err := r.route(typ)
	switch {
	case err != nil:
		return err
	case p != nil:
		return p.Delete(ctx, typ, id)
	}
	return r.base.Delete(ctx, typ, id)
}

func (r *Router) Lookup(ctx context.Context, typ, cloudName string) (provider.Object, error) {
	p, err := r.route(typ)
	switch {
	case err != nil:
		return provider.Object{}, err
	case p != nil:
		return p.Lookup(ctx, typ, cloudName)
	}
	return r.base.Lookup(ctx, typ, cloudName)
}

// SelfPlanned: the types of the Terraform providers (and what looks like
// one: refused by the calls that follow).
func (r *Router) SelfPlanned(typ string) bool {
	p, err := r.route(typ)
	return p != nil || err != nil
}

// OwnType is the provider's own name of typ ("" for base's types and
// for a provider's that are not renamed).
func (r *Router) OwnType(ctx context.Context, typ string) (string, error) {
	p, err := r.route(typ)
	if p == nil || err != nil {
		return "", err
	}
	return p.OwnType(ctx, typ)
}

// ProviderOf names the provider of typ: the Terraform provider's local
// name, also for a type of one the configuration no longer declares (its
// prefix), else base's name.
func (r *Router) ProviderOf(typ string) string {
	p, err := r.route(typ)
	switch {
	case p != nil:
		return p.Name()
	case err != nil:
		name, _, _ := strings.Cut(typ, "_")
		return name
	}
	return r.base.Name()
}

// WriteOnly lists the write-only attributes of a Terraform provider's
// resource type; Kyku's own types have none.
func (r *Router) WriteOnly(ctx context.Context, typ string) ([]string, error) {
	p, err := r.route(typ)
	if p == nil || err != nil {
		return nil, err
	}
	return p.WriteOnly(ctx, typ)
}

// ValidID: Kyku's stale-ID checks do not apply to a Terraform provider's
// objects; base answers for its own types when it can.
func (r *Router) ValidID(typ, id string) bool {
	if r.SelfPlanned(typ) {
		return true
	}
	if c, ok := r.base.(interface{ ValidID(typ, id string) bool }); ok {
		return c.ValidID(typ, id)
	}
	return true
}

// split divides rs into base's and each Terraform provider's.
func (r *Router) split(rs []provider.Desired) (base []provider.Desired, plugins map[*Provider][]provider.Desired) {
	plugins = map[*Provider][]provider.Desired{}
	for _, d := range rs {
		if p, err := r.route(d.Type); p != nil || err != nil {
			if p != nil {
				plugins[p] = append(plugins[p], d)
			}
			continue
		}
		base = append(base, d)
	}
	return base, plugins
}

// CheckResources asks base about its types (the Terraform providers'
// types are checked by ValidateConfigs, which needs their schemas).
func (r *Router) CheckResources(rs []provider.Desired) []provider.Refusal {
	c, ok := r.base.(provider.ResourceChecker)
	if !ok {
		return nil
	}
	base, _ := r.split(rs)
	return c.CheckResources(base)
}

func (r *Router) CheckCloud(ctx context.Context, rs []provider.Desired) ([]provider.Refusal, error) {
	c, ok := r.base.(provider.CloudChecker)
	if !ok {
		return nil, nil
	}
	base, _ := r.split(rs)
	if len(base) == 0 {
		return nil, nil
	}
	return c.CheckCloud(ctx, base)
}

// ValidateConfigs asks each Terraform provider about its resources and
// data sources (schema, then the provider's own validation), and checks
// every reference to an attribute of one of them (${zone.zone_id}) names
// an attribute its schema has.
func (r *Router) ValidateConfigs(ctx context.Context, rs []provider.Desired) ([]provider.Refusal, error) {
	var out []provider.Refusal
	typeOf := make(map[string]provider.Desired, len(rs))
	for _, d := range rs {
		typeOf[d.Name] = d
		if _, err := r.route(d.Type); err != nil {
			out = append(out, provider.Refusal{Resource: d.Name, Reason: err.Error()})
		}
	}
	_, plugins := r.split(rs)
	names := make([]string, 0, len(plugins))
	byName := map[string]*Provider{}
	for p := range plugins {
		names = append(names, p.Name())
		byName[p.Name()] = p
	}
	slices.Sort(names)
	for _, n := range names {
		p := byName[n]
		got, err := p.ValidateConfigs(ctx, plugins[p])
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	for _, d := range rs {
		refused, err := r.checkRefs(ctx, d, typeOf)
		if err != nil {
			return nil, err
		}
		out = append(out, refused...)
	}
	return out, nil
}

// checkRefs refuses the references of d to attributes a Terraform
// provider's resource or data source does not have.
func (r *Router) checkRefs(ctx context.Context, d provider.Desired, typeOf map[string]provider.Desired) ([]provider.Refusal, error) {
	var out []provider.Refusal
	var walk func(path string, v any) error
	walk = func(path string, v any) error {
		switch x := v.(type) {
		case string:
			for _, ref := range value.Refs(x) {
				target, ok := typeOf[ref.Resource]
				if !ok || ref.Attr == "" || ref.Attr == "id" {
					continue
				}
				p := r.plugin(target.Type)
				if p == nil {
					continue
				}
				b, ok, err := p.block(ctx, target.Type, target.Data)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
				if names := b.Names(); !slices.Contains(names, ref.Attr) {
					out = append(out, provider.Refusal{Resource: d.Name, Path: path,
						Reason: fmt.Sprintf("%q: %s has no attribute %q%s", ref.String(), target.Type, ref.Attr, didYouMean(ref.Attr, names))})
					continue
				}
				if a := b.Attributes[ref.Attr]; a != nil && a.WriteOnly {
					out = append(out, provider.Refusal{Resource: d.Name, Path: path,
						Reason: fmt.Sprintf("%q: %s's attribute %q is write-only: it is sent to the provider and never kept, so there is nothing to read (use what it is set from)", ref.String(), target.Type, ref.Attr)})
					continue
				}
				// A path must fit the attribute's type (its value is
				// checked when it is known).
				if ref.Path != "" {
					if err := tfschema.CheckPath(b.ImpliedType().AttributeType(ref.Attr), ref.Steps()); err != nil {
						out = append(out, provider.Refusal{Resource: d.Name, Path: path, Reason: fmt.Sprintf("%q: %v", ref.String(), err)})
					}
				}
			}
		case []any:
			for i, e := range x {
				if err := walk(fmt.Sprintf("%s[%d]", path, i), e); err != nil {
					return err
				}
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				sub := k
				if path != "" {
					sub = path + "." + k
				}
				if err := walk(sub, x[k]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return out, walk("", d.Properties)
}

func didYouMean(name string, names []string) string {
	if hint := suggest.DidYouMean(name, names); hint != "" {
		return hint
	}
	return " (it has: " + strings.Join(names, ", ") + ")"
}

func (r *Router) ReplaceRules(typ string) provider.Rules {
	if c, ok := r.base.(provider.ReplaceRules); ok && !r.SelfPlanned(typ) {
		return c.ReplaceRules(typ)
	}
	return nil
}

func (r *Router) PlanChange(ctx context.Context, req provider.ChangeRequest) (provider.ChangePlan, error) {
	p, err := r.route(req.Type)
	switch {
	case err != nil:
		return provider.ChangePlan{}, err
	case p != nil:
		return p.PlanChange(ctx, req)
	}
	if c, ok := r.base.(provider.ChangePlanner); ok {
		return c.PlanChange(ctx, req)
	}
	return provider.ChangePlan{}, nil
}

// KeptBy forwards to base for its own types; a Terraform provider's
// resources say nothing of it.
func (r *Router) KeptBy(typ string) []provider.Use {
	if c, ok := r.base.(provider.UseKeeper); ok && !r.SelfPlanned(typ) {
		return c.KeptBy(typ)
	}
	return nil
}

func (r *Router) CheckName(typ, cloudName string) error {
	if c, ok := r.base.(provider.NameChecker); ok && !r.SelfPlanned(typ) {
		return c.CheckName(typ, cloudName)
	}
	return nil
}

func (r *Router) CanRename(typ string) bool {
	c, ok := r.base.(provider.Renamer)
	return ok && !r.SelfPlanned(typ) && c.CanRename(typ)
}

// Rename renames base's objects when base can; anything else keeps its
// name (the state moves alone).
func (r *Router) Rename(ctx context.Context, id string, res provider.Resource) (provider.Object, error) {
	if c, ok := r.base.(provider.Renamer); ok && !r.SelfPlanned(res.Type) {
		return c.Rename(ctx, id, res)
	}
	return provider.Object{ID: id, CloudName: res.CloudName}, nil
}

func (r *Router) ReadMany(ctx context.Context, prefix string, refs []provider.Ref) (map[provider.Ref]provider.Object, error) {
	c, ok := r.base.(provider.BulkReader)
	if !ok {
		return nil, nil
	}
	base := make([]provider.Ref, 0, len(refs))
	for _, ref := range refs {
		if !r.SelfPlanned(ref.Type) {
			base = append(base, ref)
		}
	}
	if len(base) == 0 {
		return nil, nil
	}
	return c.ReadMany(ctx, prefix, base)
}

func (r *Router) ReadStored(ctx context.Context, typ, id string, s provider.Stored) (provider.Object, error) {
	p, err := r.route(typ)
	switch {
	case err != nil:
		return provider.Object{}, err
	case p != nil:
		return p.ReadStored(ctx, typ, id, s)
	}
	return r.base.Read(ctx, typ, id)
}

func (r *Router) DeleteStored(ctx context.Context, typ, id string, s provider.Stored, prior *provider.Planned) error {
	p, err := r.route(typ)
	switch {
	case err != nil:
		return err
	case p != nil:
		return p.DeleteStored(ctx, typ, id, s, prior)
	}
	return r.base.Delete(ctx, typ, id)
}

func (r *Router) Import(ctx context.Context, typ, id string) (provider.Object, error) {
	p, err := r.route(typ)
	switch {
	case err != nil:
		return provider.Object{}, err
	case p != nil:
		return p.Import(ctx, typ, id)
	}
	return r.base.Read(ctx, typ, id)
}

func (r *Router) ReadData(ctx context.Context, typ string, props map[string]any) (map[string]any, []string, error) {
	p, err := r.route(typ)
	switch {
	case err != nil:
		return nil, nil, err
	case p != nil:
		return p.ReadData(ctx, typ, props)
	}
	return nil, nil, errors.New(typ + " is not a data source")
}

func (r *Router) PlanData(ctx context.Context, typ string, props map[string]any) (map[string]any, []string, error) {
	p, err := r.route(typ)
	switch {
	case err != nil:
		return nil, nil, err
	case p != nil:
		return p.PlanData(ctx, typ, props)
	}
	return nil, nil, errors.New(typ + " is not a data source")
}

// AttributeType answers for a Terraform provider's types; Kyku's own
// declare no attribute types (nil).
func (r *Router) AttributeType(ctx context.Context, typ string, data bool, attr string, path []value.Step) (any, error) {
	p, err := r.route(typ)
	if err != nil || p == nil {
		return nil, err
	}
	return p.AttributeType(ctx, typ, data, attr, path)
}
