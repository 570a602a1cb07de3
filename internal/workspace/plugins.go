package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"time"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/lang/funcs"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/builtin"
	"github.com/kyku/action/internal/provider/tfprovider"
	"github.com/kyku/action/internal/tfinstall"
)

// Terraform providers. A configuration's `providers:` section names
// provider plugins; they are installed (package tfinstall) from a
// filesystem mirror, unpacked or packed (Plugins.Mirror:
// KYKU_PLUGIN_MIRROR, the CLI's --plugin-mirror, the Action's
// plugin-mirror input; `kyku providers mirror` fills one) or from their
// registries into a cache directory, and every package must match the
// lock file beside the configuration (.kyku.lock.hcl, or Terraform's
// .terraform.lock.hcl for a directory of .tf files; written by `kyku
// init`): a provider the lock does not name is refused ("run kyku
// init"), and so is a changed binary. The engine then drives a
// tfprovider.Router: Kyku's own types to the configuration's provider,
// `<name>_…` to the provider called name, each a process of its own,
// started when first needed and stopped by Workspace.Close.
//
// A provider binary is code that runs with the run's credentials, and a
// pull request can write the configuration and the lock: a front door
// that runs for others passes the lock of the default branch
// (Plugins.Lock) and decides which sources may run (Plugins.Allow), both
// from where the pull request cannot reach, and runs each in a sandbox
// with only what is granted to it (Plugins.Confine).

// Plugins says how Terraform providers are installed and run.
type Plugins struct {
	// Mirror is a filesystem mirror, unpacked or packed; with one, nothing
	// is fetched from a registry.
	Mirror string
	// Refused, when set, is why providers may not be installed here (the
	// CLI configuration's provider_installation Kyku does not follow):
	// installing one fails with it, a configuration without Terraform
	// providers runs.
	Refused error
	// CacheDir keeps the packages fetched from registries ("": .kyku-state/
	// providers beside the configuration).
	CacheDir string
	// HTTP is the registry client (nil: one with a 5 minute timeout).
	HTTP *http.Client
	// Credentials adds a private registry's token to the requests that go
	// to that registry's host (nil: none).
	Credentials tfinstall.Authorizer
	// Env is the whole environment of the provider processes (their
	// clouds' credentials); nothing else is passed on.
	Env []string
	// Stderr receives the providers' logs (nil: discarded).
	Stderr io.Writer
	// Lock, when set, is the lock the packages must match (a front door's
	// trusted one); nil: the lock file beside the configuration.
	Lock *tfinstall.Lock
	// Verify checks the signatures of what is fetched from registries
	// (pgpverify.Verify; tfinstall.Registry.Verify); nil: nothing is
	// fetched from a registry (a mirror or the cache still serves).
	Verify func(signed, sig []byte, armoredKeys []string) (badKey int, err error)
	// Allow, when set, refuses the sources that may not run here (a
	// policy); nil allows every source the lock pins.
	Allow func(tfinstall.Source) error
	// ReadOnlyLock has Init refuse to change the lock file, as tofu init
	// -lockfile=readonly does: a provider the lock does not name, or
	// hashes it lacks, are an error rather than written.
	ReadOnlyLock bool
	// ClientVersion is what providers are told their client is (default
	// "1.12.6": the OpenTofu version whose protocol behaviour Kyku
	// follows).
	ClientVersion string
	// RenewGrowth is how many times its size once configured a provider
	// process may grow to before it is replaced between calls (zero: 1.75,
	// negative: never; package tfprovider, renew.go).
	RenewGrowth float64
	// OnStart, when set, is called with the process ID of every provider
	// process started.
	OnStart func(pid int)
	// Keeper, when set, is the command of the journal keeper that
	// launches each provider process not sandboxed
	// (tfplugin.Config.Keeper: kyku-engine with tfplugin.KeeperArg).
	Keeper []string
	// ValidateOnly starts the providers only to check configurations
	// against their schemas (GetProviderSchema, ValidateProviderConfig,
	// ValidateResourceConfig), never configuring them: `kyku validate`,
	// which needs no cloud credentials, as `terraform validate`. Any other
	// call to them fails.
	ValidateOnly bool
	// Notice, when set, is told what Init changed in the lock besides its
	// choices (entries carried over from HashiCorp's registry host), and
	// what a provider's launch did that the user should know of (a
	// journal keeper not spoken to: tfplugin.Config.Notice).
	Notice func(line string)
	// Confine, when set, runs every provider process in a sandbox: it says,
	// for the provider at source, which sandbox and what environment (Env
	// is then not used); its error refuses the provider. Before anything is
	// installed, the sandbox is tried (tfplugin.CheckSandbox): without one,
	// every provider is refused. nil: providers run as Kyku's own
	// children, with Env.
	Confine func(source tfinstall.Source) (Confinement, error)
	// NewID, when set, gives the IDs of the objects OpenTofu's built-in
	// provider creates (terraform_data); nil: random UUIDs.
	NewID func() (string, error)
}

// ParseRenewGrowth reads KYKU_PROVIDER_RENEW: "off", or how many times its
// size once configured a provider process may grow to before it is
// replaced between calls (more than 1).
func ParseRenewGrowth(v string) (float64, error) {
	if v == "off" {
		return -1, nil
	}
	g, err := strconv.ParseFloat(v, 64)
	if err != nil || !(g > 1) || math.IsInf(g, 0) {
		return 0, fmt.Errorf("KYKU_PROVIDER_RENEW=%q: want \"off\" or a growth factor above 1, such as 2", v)
	}
	return g, nil
}

// LockPath is the lock file of the Kyku configuration in baseDir.
func LockPath(baseDir string) string { return filepath.Join(baseDir, tfinstall.LockFileName) }

// ConfigLockPath is cfg's lock file in baseDir: Terraform's
// .terraform.lock.hcl for a directory of .tf files, else LockPath.
func ConfigLockPath(cfg *config.Config, baseDir string) string {
	return filepath.Join(baseDir, tfinstall.LockFileNameOf(cfg.Terraform))
}

// requirements are cfg's providers as the installer wants them, one per
// source, and the source of each entry of cfg.Providers (a source may be
// configured more than once, under local names of its own; every one of
// them must then ask for the same version). Every bad source or
// constraint is a diagnostic at its position.
func requirements(cfg *config.Config, allow func(tfinstall.Source) error) ([]tfinstall.Requirement, []tfinstall.Source, error) {
	var ds diag.Diagnostics
	var out []tfinstall.Requirement
	srcs := make([]tfinstall.Source, len(cfg.Providers))
	first := map[tfinstall.Source]*config.PluginProvider{}
	for i, pp := range cfg.Providers {
		src, err := tfinstall.ParseSource(pp.Source)
		if err != nil {
			ds.Add(pp.SourcePos, "provider %q: %v", pp.Name, err)
			continue
		}
		srcs[i] = src
		if f := first[src]; f != nil {
			if f.Version != pp.Version {
				ds.Add(pp.VersionPos, "provider %q: version %q differs from %q of provider %q (%s), another configuration of %s: one version of a provider runs in a run", pp.Name, pp.Version, f.Version, f.Name, f.Pos, src)
			}
			continue
		}
		first[src] = pp
		c, err := tfinstall.ParseConstraints(pp.Version)
		if err != nil {
			ds.Add(pp.VersionPos, "provider %q: version %q: %v", pp.Name, pp.Version, err)
			continue
		}
		if allow != nil {
			if err := allow(src); err != nil {
				ds.Add(pp.SourcePos, "provider %q (%s): %v", pp.Name, src, err)
				continue
			}
		}
		out = append(out, tfinstall.Requirement{Source: src, Constraints: c})
	}
	if err := ds.Err(); err != nil {
		return nil, nil, err
	}
	return out, srcs, nil
}

// perEntry lists what was installed for each entry of cfg.Providers, whose
// sources are srcs.
func perEntry(got []tfinstall.Installed, srcs []tfinstall.Source) []tfinstall.Installed {
	by := make(map[tfinstall.Source]tfinstall.Installed, len(got))
	for _, in := range got {
		by[in.Source] = in
	}
	out := make([]tfinstall.Installed, len(srcs))
	for i, src := range srcs {
		out[i] = by[src]
	}
	return out
}

func (s Settings) installer() (*tfinstall.Installer, error) {
	if s.Plugins.Refused != nil {
		return nil, s.Plugins.Refused
	}
	cache := s.Plugins.CacheDir
	if cache == "" {
		cache = tfinstall.CacheDirOf(s.BaseDir)
	}
	client := s.Plugins.HTTP
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Minute}
	}
	return &tfinstall.Installer{
		Mirror: s.Plugins.Mirror, CacheDir: cache, Registry: &tfinstall.Registry{Client: client, Credentials: s.Plugins.Credentials, Verify: s.Plugins.Verify},
		Platform: tfinstall.Platform{OS: runtime.GOOS, Arch: runtime.GOARCH},
	}, nil
}

// Init installs cfg's providers (choosing versions for the ones the lock
// does not name yet; with upgrade, for all of them) and writes the lock
// file beside the configuration: `kyku init`. It returns what it
// installed for each entry of cfg.Providers and the lock's path.
func Init(ctx context.Context, cfg *config.Config, s Settings, upgrade bool) ([]tfinstall.Installed, string, error) {
	reqs, srcs, err := requirements(cfg, s.Plugins.Allow)
	if err != nil {
		return nil, "", err
	}
	path := ConfigLockPath(cfg, s.BaseDir)
	lock, err := tfinstall.ReadLock(path)
	if err != nil {
		return nil, "", err
	}
	if err := s.moveLayout(ctx, cfg); err != nil {
		return nil, "", err
	}
	if err := s.ignoreProviderCache(); err != nil {
		return nil, "", err
	}
	carry(lock, path, s.Plugins.Notice)
	in, err := s.installer()
	if err != nil {
		return nil, "", err
	}
	in.LinkMirror = true // later runs find the mirror's packages without it
	got, err := in.Install(ctx, reqs, lock, upgrade)
	if err != nil {
		return nil, "", namingLock(err, path)
	}
	if s.Plugins.ReadOnlyLock {
		if tfinstall.LockDiffers(path, lock) {
			return nil, "", fmt.Errorf("%s: the providers' dependencies changed (a provider or hash the lock file does not record), but the lock file is read-only (-lockfile=readonly): run kyku init without it to record them", path)
		}
		return perEntry(got, srcs), path, nil
	}
	if err := tfinstall.WriteLock(path, lock); err != nil {
		return nil, "", err
	}
	return perEntry(got, srcs), path, nil
}

// carry carries the lock's entries of HashiCorp's registry host over to
// the default host, as OpenTofu's init does (tfinstall.Lock.FromHashiCorpHost),
// and tells notice about each.
func carry(lock *tfinstall.Lock, path string, notice func(string)) {
	moved := lock.FromHashiCorpHost()
	if notice == nil {
		return
	}
	olds := make([]tfinstall.Source, 0, len(moved))
	for old := range moved {
		olds = append(olds, old)
	}
	sort.Slice(olds, func(i, j int) bool { return olds[i].String() < olds[j].String() })
	for _, old := range olds {
		notice(fmt.Sprintf("kyku: %s: %s takes the version of %s (%s), with hashes of its own (OpenTofu's releases of HashiCorp's providers are other files)",
			filepath.Base(path), moved[old], old, lock.Providers[moved[old]].Version))
	}
}

// MirrorProviders downloads cfg's providers from their registries into
// dir, in the packed layout, for each of platforms: `kyku providers
// mirror`. With a lock file beside the configuration its versions are
// mirrored (its entries of HashiCorp's registry host carried over as
// Init carries them), else the newest each constraint allows. The lock
// is not written.
func MirrorProviders(ctx context.Context, cfg *config.Config, s Settings, dir string, platforms []tfinstall.Platform) ([]tfinstall.Mirrored, error) {
	reqs, _, err := requirements(cfg, s.Plugins.Allow)
	if err != nil {
		return nil, err
	}
	path := ConfigLockPath(cfg, s.BaseDir)
	lock, err := tfinstall.ReadLock(path)
	if err != nil {
		return nil, err
	}
	carry(lock, path, s.Plugins.Notice)
	in, err := s.installer()
	if err != nil {
		return nil, err
	}
	w := &tfinstall.MirrorWriter{Dir: dir, Registry: in.Registry, Platforms: platforms}
	return w.Write(ctx, reqs, lock)
}

// ErrNotLocked is wrapped by the error of a provider the lock file does
// not name: `kyku init` chooses and records it.
var ErrNotLocked = errors.New("not in the lock file")

// plugins installs and checks cfg's providers against the lock (never
// writing it) and returns them, not yet started.
func plugins(ctx context.Context, cfg *config.Config, s Settings) ([]*tfprovider.Provider, error) {
	reqs, srcs, err := requirements(cfg, s.Plugins.Allow)
	if err != nil {
		return nil, err
	}
	lock := s.Plugins.Lock
	where := "the lock file given"
	if lock == nil {
		path := ConfigLockPath(cfg, s.BaseDir)
		if lock, err = tfinstall.ReadLock(path); err != nil {
			return nil, err
		}
		where = path
	}
	var ds diag.Diagnostics
	for i, src := range srcs {
		if lock.Providers[src] == nil {
			pp := cfg.Providers[i]
			ds.Add(pp.SourcePos, "provider %q (%s) is %s %s: run \"kyku init\" to choose its version and record its hashes", pp.Name, src, ErrNotLocked.Error(), where)
		}
	}
	if err := ds.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrNotLocked)
	}
	confined, err := confine(ctx, cfg, srcs, s)
	if err != nil {
		return nil, err
	}
	check := &tfinstall.Lock{Providers: map[tfinstall.Source]*tfinstall.Locked{}}
	for src, l := range lock.Providers {
		c := *l
		check.Providers[src] = &c
	}
	if err := s.ignoreProviderCache(); err != nil {
		return nil, err
	}
	in, err := s.installer()
	if err != nil {
		return nil, err
	}
	got, err := in.Install(ctx, reqs, check, false)
	if err != nil {
		return nil, namingLock(err, where)
	}
	version := s.Plugins.ClientVersion
	if version == "" {
		version = "1.12.6"
	}
	out := make([]*tfprovider.Provider, len(cfg.Providers))
	for i, in := range perEntry(got, srcs) {
		pp := cfg.Providers[i]
		pc := tfprovider.Config{
			Name: pp.Name, Source: in.Source.String(), Executable: in.Executable, Version: in.Version,
			Settings: pp.Config, Pos: pp.Pos, PropPos: &pp.PropPos,
			Env: s.Plugins.Env, Dir: s.BaseDir, Stderr: s.Plugins.Stderr, ClientVersion: version, Parallelism: s.Engine.Parallelism,
			RenewGrowth: s.Plugins.RenewGrowth, OnStart: s.Plugins.OnStart, Learn: s.Engine.Secrets.Add,
			ValidateOnly: s.Plugins.ValidateOnly, Notice: s.Plugins.Notice,
		}
		if c := confined[i]; c != nil {
			pc.Sandbox, pc.Env = &c.Sandbox, c.Env
		} else {
			pc.Keeper = s.Plugins.Keeper
		}
		out[i] = tfprovider.New(pc)
	}
	return out, nil
}

// FunctionConfig is the configuration of the one Terraform provider a
// configuration requires as local (of source source, version constraint
// version) for its functions (provider::NAME::FUNCTION).
func FunctionConfig(local, source, version string) *config.Config {
	return &config.Config{Terraform: true, Providers: []*config.PluginProvider{{Name: local, Source: source, Version: version}}}
}

// ProviderFunctions serves the functions of that provider, ready to call
// (funcs.ProviderFunctions), each call with ctx: installed and checked
// against the lock as its resources' provider is, confined alike, and
// started unconfigured, once; started keeps it, for the caller to stop
// when its run ends.
func ProviderFunctions(ctx context.Context, s Settings, started *tfprovider.FunctionsStarted, local, source, version string) (map[string]function.Function, error) {
	ps, err := plugins(ctx, FunctionConfig(local, source, version), s)
	if err != nil {
		return nil, err
	}
	fp := ps[0].Functions()
	started.Add(fp)
	specs, err := fp.List(ctx)
	if err != nil {
		return nil, err
	}
	return funcs.ProviderFunctions(specs, func(name string, args []cty.Value) (cty.Value, error) {
		return fp.Call(ctx, name, args)
	}), nil
}

// withPlugins wraps base in a router to cfg's Terraform providers, when
// it has any, and, for a Terraform configuration, to OpenTofu's built-in
// provider (terraform_data, terraform_remote_state), served in process.
func withPlugins(ctx context.Context, cfg *config.Config, s Settings, base provider.Provider) (provider.Provider, error) {
	if len(cfg.Providers) == 0 && !cfg.Terraform {
		return base, nil
	}
	var ps []*tfprovider.Provider
	if len(cfg.Providers) > 0 {
		var err error
		if ps, err = plugins(ctx, cfg, s); err != nil {
			return nil, err
		}
	}
	r := tfprovider.NewRouter(base, ps...)
	if cfg.Terraform {
		newID := s.Plugins.NewID
		if newID == nil {
			newID = builtin.RandomUUID
		}
		r.Serve(builtin.Name, builtin.New(newID).WithStates(NewRemoteStates(s.BaseDir, s)))
	}
	return r, nil
}

// namingLock has a checksum error of err name the lock file at path.
func namingLock(err error, path string) error {
	var ce *tfinstall.ChecksumError
	if errors.As(err, &ce) {
		ce.Lock = filepath.Base(path)
	}
	return err
}

// Release stops what p runs (the processes of Terraform providers):
// every provider Provider returns must be released.
func Release(p provider.Provider) {
	p.Close()
}
