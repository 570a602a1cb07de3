package sim

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

// Provider is the simulated cloud. Safe for concurrent use by many
// goroutines and by several processes sharing one directory.
type Provider struct {
	opts  Options
	now   func() time.Time
	store *store
	rngMu sync.Mutex
	rng   *rand.Rand
	calls [numKinds]atomic.Int64
}

var (
	_ provider.Provider = (*Provider)(nil)
	_ provider.Provider = Bulk{}
)

// zones is the simulator's fixed, stable list of availability zones.
var zones = []string{"sim-a", "sim-b", "sim-c"}

// New returns a simulator whose cloud is opts.Dir (created on first write).
func New(opts Options) (*Provider, error) {
	if opts.Dir == "" {
		return nil, errors.New("sim: no directory for the simulated cloud")
	}
	if opts.LatencyMin < 0 || opts.LatencyMax < opts.LatencyMin {
		return nil, fmt.Errorf("sim: bad latency range %s-%s", opts.LatencyMin, opts.LatencyMax)
	}
	if opts.PageSize < 0 {
		return nil, fmt.Errorf("sim: page size %d is negative", opts.PageSize)
	}
	if opts.PageSize == 0 {
		opts.PageSize = DefaultPageSize
	}
	if !(opts.FailRate >= 0 && opts.FailRate <= 1) {
		return nil, fmt.Errorf("sim: fail rate %v is not between 0 and 1", opts.FailRate)
	}
	seed := uint64(opts.Seed)
	if seed == 0 {
		seed = rand.Uint64()
	}
	p := &Provider{
		opts:  opts,
		now:   opts.Now,
		store: &store{dir: opts.Dir},
		rng:   rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
	}
	if p.now == nil {
		p.now = time.Now
	}
	return p, nil
}

// settingVars maps the provider settings a config may give to the
// variables they override.
var settingVars = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"dir":      EnvDir,
		"latency":  EnvLatency,
		"failRate": EnvFailRate,
		"fail":     EnvFail,
		"seed":     EnvSeed,
		"bulk":     EnvBulk,
		"pageSize": EnvPageSize,
	}
})

// Factory builds a simulator for the provider registry: options from the
// environment, overridden by the config's settings (dir, latency, failRate,
// fail, seed, bulk, pageSize).
func Factory(_ context.Context, settings map[string]string, getenv func(string) string) (provider.Provider, error) {
	opts, err := OptionsFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env, ok := settingVars()[k]
		if !ok {
			return nil, fmt.Errorf("sim: unknown setting %q (want dir, latency, failRate, fail, seed, bulk or pageSize)", k)
		}
		if err := opts.set(env, settings[k]); err != nil {
			return nil, fmt.Errorf("setting %s: %w", k, err)
		}
	}
	return Open(opts)
}

// Name is "sim".
func (p *Provider) Name() string { return "sim" }

// ValidID reports whether id is a sim provider ID (a decimal number, like
// Hetzner's). A non-numeric ID in state is a stale Kyku name recorded by an
// early version; the engine resolves it by name before destroying.
func (p *Provider) ValidID(_, id string) bool {
	if id == "" {
		return false
	}
	for _, c := range id {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Dir is the directory holding the simulated cloud.
func (p *Provider) Dir() string { return p.opts.Dir }

// Zones returns sim-a, sim-b, sim-c. It pays the latency but never fails
// transiently: the list is static, and read-only commands (validate,
// graph) ask for it once without retrying.
func (p *Provider) Zones(ctx context.Context) ([]string, error) {
	p.calls[kindZones].Add(1)
	if err := p.wait(ctx); err != nil {
		return nil, err
	}
	return append([]string(nil), zones...), nil
}

// Create creates r, or returns as is the existing object of r.Type named
// r.CloudName. At most one object per cloud name exists, even when
// processes race or crash (see doc.go).
func (p *Provider) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	p.calls[kindCreate].Add(1)
	if err := p.wait(ctx); err != nil {
		return provider.Object{}, err
	}
	t, err := lookupType(r.Type)
	if err != nil {
		return provider.Object{}, err
	}
	r.Properties = normalize(r.Properties)
	if err := p.validate(t, r); err != nil {
		return provider.Object{}, err
	}
	if err := p.injected(OpCreate, r.Type, r.Name); err != nil {
		return provider.Object{}, err
	}
	f := p.draw(true)
	if f == faultBefore {
		return provider.Object{}, transient(OpCreate, r.Type, fmt.Sprintf("%q", r.Name), f)
	}
	obj, err := p.create(r)
	if err != nil {
		return provider.Object{}, err
	}
	if f == faultAfter {
		return provider.Object{}, transient(OpCreate, r.Type, fmt.Sprintf("%q", r.Name), f)
	}
	return obj, nil
}

func (p *Provider) create(r provider.Resource) (provider.Object, error) {
	x := p.store.indexOf(r.Type)
	if err := x.lock(p.store, r.Type); err != nil {
		return provider.Object{}, err
	}
	defer x.unlock()
	if id := x.ids[r.CloudName]; id != "" {
		rec, err := p.store.read(r.Type, id)
		if err == nil && rec.CloudName == r.CloudName {
			return toObject(rec), nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return provider.Object{}, err
		}
		// The index outlived its object (deleted, renamed, or a crash
		// before the object was written): the name is free.
	}
	if err := p.checkOverlap(r); err != nil {
		return provider.Object{}, err
	}
	rec := &record{
		Type:       r.Type,
		Name:       r.Name,
		CloudName:  r.CloudName,
		Created:    p.now().UTC().Format(time.RFC3339),
		Properties: r.Properties,
	}
	for {
		id, err := p.store.allocID(r.Name)
		if err != nil {
			return provider.Object{}, err
		}
		// Index first: a crash from here on leaves an index line without
		// an object, which the next Create reclaims, never an object
		// without one.
		if err := x.set(r.CloudName, id); err != nil {
			return provider.Object{}, err
		}
		rec.ID = id
		rec.Outputs = p.outputs(rec)
		err = p.store.writeNew(rec)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) { // else: the counter was reset by hand; next ID
			return provider.Object{}, err
		}
	}
	return toObject(rec), nil
}

// Read returns the object as its file says now: edits show as drift.
func (p *Provider) Read(ctx context.Context, typ, id string) (provider.Object, error) {
	p.calls[kindRead].Add(1)
	if err := p.wait(ctx); err != nil {
		return provider.Object{}, err
	}
	if _, err := lookupType(typ); err != nil {
		return provider.Object{}, err
	}
	if f := p.draw(false); f != noFault {
		return provider.Object{}, transient(OpRead, typ, id, f)
	}
	rec, err := p.readObject(typ, id)
	if err != nil {
		return provider.Object{}, err
	}
	if err := p.injected(OpRead, typ, rec.Name); err != nil {
		return provider.Object{}, err
	}
	return toObject(rec), nil
}

// readObject reads an object, mapping a missing file to provider.ErrNotFound.
func (p *Provider) readObject(typ, id string) (*record, error) {
	if !validID(id) {
		return nil, fmt.Errorf("sim: %s %q: not a simulator ID: %w", typ, id, provider.ErrNotFound)
	}
	rec, err := p.store.read(typ, id)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("sim: %s %s: %w", typ, id, provider.ErrNotFound)
	}
	return rec, err
}

// Lookup finds the object of typ named cloudName through the name index.
func (p *Provider) Lookup(ctx context.Context, typ, cloudName string) (provider.Object, error) {
	p.calls[kindLookup].Add(1)
	if err := p.wait(ctx); err != nil {
		return provider.Object{}, err
	}
	if _, err := lookupType(typ); err != nil {
		return provider.Object{}, err
	}
	if f := p.draw(false); f != noFault {
		return provider.Object{}, transient(OpRead, typ, fmt.Sprintf("named %q", cloudName), f)
	}
	id, err := p.store.indexOf(typ).lookup(p.store, typ, cloudName)
	if err != nil {
		return provider.Object{}, err
	}
	if id == "" {
		return provider.Object{}, fmt.Errorf("sim: %s named %q: %w", typ, cloudName, provider.ErrNotFound)
	}
	rec, err := p.readObject(typ, id)
	if err != nil {
		return provider.Object{}, err
	}
	if rec.CloudName != cloudName { // renamed since: the name is free
		return provider.Object{}, fmt.Errorf("sim: %s named %q: %w", typ, cloudName, provider.ErrNotFound)
	}
	if err := p.injected(OpRead, typ, rec.Name); err != nil {
		return provider.Object{}, err
	}
	return toObject(rec), nil
}

// Update replaces the object's properties with r's; changing an immutable
// one is refused. The cloud name and the Kyku name it was created with stay.
func (p *Provider) Update(ctx context.Context, id string, r provider.Resource) (provider.Object, error) {
	p.calls[kindUpdate].Add(1)
	if err := p.wait(ctx); err != nil {
		return provider.Object{}, err
	}
	t, err := lookupType(r.Type)
	if err != nil {
		return provider.Object{}, err
	}
	r.Properties = normalize(r.Properties)
	rec, err := p.readObject(r.Type, id)
	if err != nil {
		return provider.Object{}, err
	}
	if r.Name == "" {
		r.Name = rec.Name
	}
	r.CloudName = rec.CloudName
	if err := p.validate(t, r); err != nil {
		return provider.Object{}, err
	}
	if err := p.injected(OpUpdate, r.Type, r.Name); err != nil {
		return provider.Object{}, err
	}
	if f := p.draw(false); f != noFault {
		return provider.Object{}, transient(OpUpdate, r.Type, fmt.Sprintf("%q", r.Name), f)
	}
	x := p.store.indexOf(r.Type)
	if err := x.lock(p.store, r.Type); err != nil {
		return provider.Object{}, err
	}
	defer x.unlock()
	if rec, err = p.readObject(r.Type, id); err != nil { // again, under the lock
		return provider.Object{}, err
	}
	if err := checkFixed(t.Name, r.Name, rec.Properties, r.Properties); err != nil {
		return provider.Object{}, err
	}
	rec.Properties = r.Properties
	rec.Outputs = p.outputs(rec)
	if err := p.store.write(rec); err != nil {
		return provider.Object{}, err
	}
	return toObject(rec), nil
}

// Delete removes the object and its name index.
func (p *Provider) Delete(ctx context.Context, typ, id string) error {
	p.calls[kindDelete].Add(1)
	if err := p.wait(ctx); err != nil {
		return err
	}
	if _, err := lookupType(typ); err != nil {
		return err
	}
	rec, err := p.readObject(typ, id)
	if err != nil {
		return err
	}
	if err := p.injected(OpDelete, typ, rec.Name); err != nil {
		return err
	}
	if err := p.inUse(rec); err != nil {
		return err
	}
	f := p.draw(true)
	if f == faultBefore {
		return transient(OpDelete, typ, id, f)
	}
	if err := p.delete(rec); err != nil {
		return err
	}
	if f == faultAfter {
		return transient(OpDelete, typ, id, f)
	}
	return nil
}

func (p *Provider) delete(rec *record) error {
	x := p.store.indexOf(rec.Type)
	if err := x.lock(p.store, rec.Type); err != nil {
		return err
	}
	defer x.unlock()
	if err := removeFile(p.store.objectPath(rec.Type, rec.ID)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("sim: %s %s: %w", rec.Type, rec.ID, provider.ErrNotFound)
		}
		return err
	}
	return nil
}

// toObject converts a record, which it takes over (every caller has a
// record of its own: decoded for the call, or just written); Outputs["id"]
// is always the ID.
func toObject(rec *record) provider.Object {
	out := rec.Outputs
	if out == nil {
		out = make(map[string]any, 1)
	}
	out["id"] = rec.ID
	return provider.Object{ID: rec.ID, CloudName: rec.CloudName, Properties: rec.Properties, Outputs: out}
}

func normalize(props map[string]any) map[string]any {
	if props == nil {
		return map[string]any{}
	}
	return value.Normalize(props).(map[string]any)
}

// Close releases the files the provider keeps open (the ID counter and the
// name indexes). Optional: they are also closed when the Provider is
// garbage-collected, and a closed Provider reopens them on its next call.
func (p *Provider) Close() error {
	return p.store.close()
}
