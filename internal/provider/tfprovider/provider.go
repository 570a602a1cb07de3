package tfprovider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/lang/ctyvalue"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/suggest"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfschema"
	"github.com/kyku/action/internal/value"
)

// Config says how to run one provider configuration.
type Config struct {
	// Name is the provider's local name in the configuration ("null"),
	// the prefix of its types.
	Name string
	// Source is its address ("registry.opentofu.org/hashicorp/null").
	Source string
	// Executable is the installed and checked provider program, and
	// Version its version (provider.TypeSchema.Version).
	Executable string
	Version    string
	// Settings are its configuration (canonical values), checked against
	// its schema; Pos and PropPos position the diagnostics about them.
	Settings map[string]any
	Pos      diag.Pos
	PropPos  *diag.Positions
	// Env is the whole environment of the provider process (its cloud's
	// credentials); nothing else is passed on.
	Env []string
	// Dir is its working directory (the configuration's).
	Dir string
	// Sandbox, when set, confines the process (tfplugin.Sandbox).
	Sandbox *tfplugin.Sandbox
	// Keeper, when set, is the command of the journal keeper that
	// launches the process and keeps the answers of creates
	// (tfplugin.Config.Keeper); not with Sandbox.
	Keeper []string
	// Stderr receives the provider's log (nil: discarded; the end of it
	// is kept for a crash's message anyway).
	Stderr io.Writer
	// ClientVersion is what the provider is told its client's version is
	// (ConfigureProvider's terraform_version).
	ClientVersion string
	// StopGrace is how long an interrupted apply waits for the provider's
	// answer (zero: 30s).
	StopGrace time.Duration
	// Parallelism bounds the calls ValidateConfigs makes at once (zero:
	// 10; the engine's own calls follow its parallelism).
	Parallelism int
	// RenewGrowth is how many times its size once configured a provider
	// process may grow to before it is replaced between calls (renew.go;
	// zero: 1.75, negative: never).
	RenewGrowth float64
	// RenewAfter, when positive, also replaces the process after that
	// many calls, whatever its size.
	RenewAfter int
	// OnStart, when set, is called with the process ID of every provider
	// process started (the CLI gives up its GC budget at the first).
	OnStart func(pid int)
	// Notice, when set, is told in one line what the user should know of
	// a process's launch (tfplugin.Config.Notice).
	Notice func(line string)
	// ValidateOnly: the provider is never configured (no
	// ConfigureProvider, so no credentials are needed), and serves only
	// its schema and the validation of configurations (ValidateConfigs),
	// as `terraform validate` uses providers; any other call fails.
	ValidateOnly bool
	// Learn, when set, is told every value of an attribute the schema
	// marks sensitive or write-only that the provider sends or receives,
	// before the call (the run's scrubber: secrets.go).
	Learn func(texts ...string)
}

// Provider is one provider configuration: its process, started at the
// first call that needs it and configured, serving every resource
// and data source of its types (replaced between calls when it has grown
// too large: renew.go). Safe for concurrent use.
type Provider struct {
	cfg Config

	mu      sync.Mutex
	started bool
	err     error // of the start, kept: every later call fails with it
	current *process
	schema  *tfschema.ProviderSchema
	// loaded is schema once started, read without mu (Empties).
	loaded  atomic.Pointer[tfschema.ProviderSchema]
	closed  bool
	renewal renewal
	// keep: a create whose answer is kept was asked for, so processes
	// launched from now on go through the journal keeper (renew.go).
	keep bool
}

// New returns the provider; nothing runs until it is used.
func New(cfg Config) *Provider { return &Provider{cfg: cfg} }

var _ provider.Provider = (*Provider)(nil)

// Name is the provider's local name.
func (p *Provider) Name() string { return p.cfg.Name }

// Source is the provider's address.
func (p *Provider) Source() string { return p.cfg.Source }

// Schema: every type of a Terraform provider is its own, with its own
// state (OwnState); its plans say what forces a replace (no Rules), and
// its objects have no cloud name of Kyku's making.
func (p *Provider) Schema(string) provider.TypeSchema {
	return provider.TypeSchema{Provider: p.cfg.Name, OwnState: true, Version: p.cfg.Version}
}

// OwnType is the provider's own name of typ when its configuration
// names its types otherwise, "" when typ is it.
// It starts the provider if it has not started yet.
func (p *Provider) OwnType(ctx context.Context, typ string) (string, error) {
	pl, _, err := p.ensure(ctx)
	if err != nil {
		return "", err
	}
	if own := pl.OwnType(typ); own != typ {
		return own, nil
	}
	return "", nil
}

// WriteOnly lists the top-level attributes of resource type typ that are
// or hold a write-only attribute. It starts the
// provider if it has not started yet.
func (p *Provider) WriteOnly(ctx context.Context, typ string) ([]string, error) {
	b, ok, err := p.block(ctx, typ, false)
	if err != nil || !ok {
		return nil, err
	}
	return b.WriteOnlyNames(), nil
}

// Empties is what every top-level attribute and nested block of resource
// type typ holds when unset (null, an empty list of blocks), as OpenTofu
// writes an instance's attributes in its state; nil when the provider has
// not started (its schema is not loaded: nothing is started for it).
func (p *Provider) Empties(typ string) map[string]any {
	s := p.loaded.Load() // not p.mu: a state write asks this, whatever holds the provider
	if s == nil {
		return nil
	}
	rs, ok := s.ResourceTypes[typ]
	if !ok {
		return nil
	}
	out, _ := ctyvalue.Canonical(tfschema.EmptyValue(rs.Block))
	m, _ := out.(map[string]any)
	return m
}

// Zones: a Terraform provider has no Kyku auto-subnets.
func (p *Provider) Zones(context.Context) ([]string, error) { return nil, nil }

// ConfigError is a provider configuration its provider refuses: the
// diagnostics positioned in the configuration's providers: section.
type ConfigError struct{ Diags diag.Diagnostics }

func (e *ConfigError) Error() string { return e.Diags.Error() }

// Unwrap lets errors.As find the diagnostics.
func (e *ConfigError) Unwrap() error { return e.Diags }

// ensure starts and configures the provider once: its schema,
// ValidateProviderConfig and ConfigureProvider (not with ValidateOnly).
// A failure is kept and returned by every later call. What it returns serves the schema and
// names of types; a call to the process takes a lease (acquire).
func (p *Provider) ensure(ctx context.Context) (*tfplugin.Provider, *tfschema.ProviderSchema, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.ensureLocked(ctx); err != nil {
		return nil, nil, err
	}
	return p.current.pl, p.schema, nil
}

// ensureLocked is ensure with p.mu held.
func (p *Provider) ensureLocked(ctx context.Context) error {
	if p.closed {
		return fmt.Errorf("provider %s: closed", p.cfg.Name)
	}
	if p.started {
		return p.err
	}
	pl, s, err := p.launch(ctx, nil)
	if err != nil {
		if ctx.Err() != nil {
			return err // interrupted: not a lasting failure
		}
		p.started, p.err = true, err
		return err
	}
	p.started, p.current, p.schema = true, &process{pl: pl, kept: p.keep && p.pluginConfig().KeepsAnswers()}, s
	p.loaded.Store(s)
	p.renewal.baseline, _ = pl.Resident()
	return nil
}

// pluginConfig is how the provider's processes are launched, when their
// creates' answers are kept (renew.go): with the journal keeper.
func (p *Provider) pluginConfig() tfplugin.Config { return p.cfg.plugin() }

// plugin is how c's processes are launched.
func (c Config) plugin() tfplugin.Config {
	return tfplugin.Config{
		Name: c.Source, LocalName: c.Name, Path: c.Executable, Dir: c.Dir, Env: c.Env,
		Stderr: c.Stderr, StopGrace: c.StopGrace, Sandbox: c.Sandbox, Keeper: c.Keeper, Notice: c.Notice,
	}
}

// launch starts a process and configures it (p.mu held); prev, when
// set, is the process it replaces, whose schema it reuses when the
// provider allows. The process goes through the journal keeper only
// once a create whose answer is kept was asked for (p.keep).
func (p *Provider) launch(ctx context.Context, prev *tfplugin.Provider) (*tfplugin.Provider, *tfschema.ProviderSchema, error) {
	pc := p.pluginConfig()
	if !p.keep {
		pc.Keeper = nil
	}
	pl, err := tfplugin.Start(ctx, pc)
	if err != nil {
		return nil, nil, fmt.Errorf("provider %s: %w", p.cfg.Name, err)
	}
	if p.cfg.OnStart != nil {
		p.cfg.OnStart(pl.Pid())
	}
	if prev != nil {
		pl.ReuseSchema(prev)
	}
	s, err := p.configure(ctx, pl)
	if err != nil {
		pl.Close()
		return nil, nil, err
	}
	return pl, s, nil
}

func (p *Provider) configure(ctx context.Context, pl *tfplugin.Provider) (*tfschema.ProviderSchema, error) {
	s, err := pl.Schema(ctx)
	if err != nil {
		return nil, fmt.Errorf("provider %s: %w", p.cfg.Name, err)
	}
	settings, _ := value.Resolve(p.cfg.Settings, func(value.Ref) (any, bool) { return nil, false })
	props, _ := settings.(map[string]any)
	cfgVal, ds := tfschema.Config(s.Provider.Block, props)
	if ds.HasErrors() {
		return nil, p.configError(ds)
	}
	prepared, ds, err := pl.ValidateProviderConfig(ctx, cfgVal)
	if err != nil {
		return nil, fmt.Errorf("provider %s: validate its configuration: %w", p.cfg.Name, err)
	}
	if ds.HasErrors() {
		return nil, p.configError(ds)
	}
	if p.cfg.ValidateOnly {
		return s, nil
	}
	ds, err = pl.ConfigureProvider(ctx, prepared, p.cfg.ClientVersion)
	if err != nil {
		return nil, fmt.Errorf("provider %s: configure: %w", p.cfg.Name, err)
	}
	if ds.HasErrors() {
		return nil, p.configError(ds)
	}
	return s, nil
}

// configError positions the errors of ds in the providers: section.
func (p *Provider) configError(ds tfschema.Diagnostics) error {
	var out diag.Diagnostics
	for _, d := range ds {
		if d.Severity != tfschema.Error {
			continue
		}
		pos := p.cfg.Pos
		path := kykuPath(d.Path)
		if pp, ok := p.cfg.PropPos.Nearest(path); ok {
			pos = pp
		}
		msg := message(d)
		if path != "" {
			msg = fmt.Sprintf("config %q: %s", path, msg)
		}
		out.Add(pos, "provider %q: %s", p.cfg.Name, msg)
	}
	out.Sort()
	return &ConfigError{Diags: out}
}

// Close stops the provider's processes (asked to exit as go-plugin asks,
// then killed) and waits for them. Safe to call more than once, also
// before the provider ever started.
func (p *Provider) Close() error {
	p.mu.Lock()
	p.closed = true
	procs := p.renewal.retiring
	if p.current != nil {
		procs = append(procs, p.current)
	}
	p.current, p.renewal.retiring = nil, nil
	p.mu.Unlock()
	for _, pr := range procs {
		pr.pl.Close()
	}
	p.renewal.closing.Wait()
	return nil
}

// Pid is the provider process's ID, 0 when it is not running (tests).
func (p *Provider) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.current == nil {
		return 0
	}
	return p.current.pl.Pid()
}

// resourceSchema is the schema of resource type typ (data: data source)
// and a lease on the process for the calls about it: release must be
// called once they have returned. A provider started to validate
// (ValidateOnly) has no call to make: an error.
func (p *Provider) resourceSchema(ctx context.Context, typ string, data bool) (pl *tfplugin.Provider, rs *tfschema.Schema, release func(), err error) {
	return p.leased(ctx, typ, data, false)
}

// leased is resourceSchema with, when kept is set (a create whose answer
// is kept), a lease on a process that goes through the journal keeper
// (renew.go).
func (p *Provider) leased(ctx context.Context, typ string, data, kept bool) (pl *tfplugin.Provider, rs *tfschema.Schema, release func(), err error) {
	if p.cfg.ValidateOnly {
		return nil, nil, nil, fmt.Errorf("provider %s: started to validate configurations only, not configured", p.cfg.Name)
	}
	return p.schemaFor(ctx, typ, data, kept)
}

// schemaOf is resourceSchema in any mode.
func (p *Provider) schemaOf(ctx context.Context, typ string, data bool) (pl *tfplugin.Provider, rs *tfschema.Schema, release func(), err error) {
	return p.schemaFor(ctx, typ, data, false)
}

// schemaFor is schemaOf with kept as leased has it.
func (p *Provider) schemaFor(ctx context.Context, typ string, data, kept bool) (pl *tfplugin.Provider, rs *tfschema.Schema, release func(), err error) {
	pl, s, release, err := p.acquire(ctx, kept)
	if err != nil {
		return nil, nil, nil, err
	}
	m, what := s.ResourceTypes, "resource type"
	if data {
		m, what = s.DataSources, "data source"
	}
	rs, ok := m[typ]
	if !ok {
		release()
		return nil, nil, nil, fmt.Errorf("provider %s (%s) has no %s %q%s", p.cfg.Name, p.cfg.Source, what, typ, closest(typ, m))
	}
	return pl, rs, release, nil
}

// closest is ` (did you mean "x"?)` for the name of m closest to typ.
func closest(typ string, m map[string]*tfschema.Schema) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return suggest.DidYouMean(typ, names)
}

// Read needs what state keeps of the object: the engine calls ReadStored.
func (p *Provider) Read(context.Context, string, string) (provider.Object, error) {
	return provider.Object{}, errNeedsState
}

// Delete needs what state keeps of the object: the engine calls
// DeleteStored.
func (p *Provider) Delete(context.Context, string, string) error { return errNeedsState }

// Lookup: a Terraform provider's objects are not found by cloud name.
func (p *Provider) Lookup(_ context.Context, typ, name string) (provider.Object, error) {
	return provider.Object{}, provider.NotFound(typ + " " + name)
}

var errNeedsState = errors.New("a Terraform provider's resource is read and deleted with what state keeps of it")

// diagsError is the error diagnostics of a call, one line each.
func diagsError(what string, ds tfschema.Diagnostics) error {
	var msgs []string
	for _, d := range ds {
		if d.Severity == tfschema.Error {
			m := message(d)
			if path := kykuPath(d.Path); path != "" {
				m = path + ": " + m
			}
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	out := what + ": " + msgs[0]
	for _, m := range msgs[1:] {
		out += "; " + m
	}
	return errors.New(out)
}

// message is a diagnostic as one line: summary and detail.
func message(d tfschema.Diagnostic) string {
	if d.Detail == "" || d.Detail == d.Summary {
		return d.Summary
	}
	return d.Summary + ": " + d.Detail
}

// objectOf is the Object of a provider's state value v: its attribute
// values (null ones left out) as properties and outputs, its "id"
// attribute (or, for a type without one, fallback) as provider ID.
func objectOf(v cty.Value, private []byte, rs *tfschema.Schema, fallback string) provider.Object {
	return objectWith(tfschema.FromCtyObject(v), v, private, rs, fallback)
}

// objectWith is the Object of attribute values attrs, whose exact form
// (a cty.Value, an encodedState) is value.
func objectWith(attrs map[string]any, value any, private []byte, rs *tfschema.Schema, fallback string) provider.Object {
	if attrs == nil {
		attrs = map[string]any{}
	}
	id, _ := attrs["id"].(string)
	if id == "" {
		id = fallback
	}
	return provider.Object{
		ID: id, Properties: attrs, Outputs: attrs,
		Stored: &provider.Stored{SchemaVersion: rs.Version, Private: private, Attributes: attrs, Value: value, Sensitive: rs.Block.SensitiveNames()},
	}
}

// Stop asks the provider's processes, when they run, to end their calls
// in flight early (StopProvider): an interrupted apply.
func (p *Provider) Stop(ctx context.Context) error {
	p.mu.Lock()
	procs := append([]*process(nil), p.renewal.retiring...)
	if p.current != nil {
		procs = append(procs, p.current)
	}
	for _, pr := range procs {
		pr.stopping++
	}
	p.mu.Unlock()
	var errs []error
	for _, pr := range procs {
		errs = append(errs, pr.pl.Stop(ctx))
		p.stopped(pr)
	}
	return errors.Join(errs...)
}
