package kyku

import (
	"context"
	"errors"
	"fmt"
	"os"

	"golang.org/x/oauth2/google"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/envname"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/tfinstall/pgpverify"
	"github.com/kyku/action/internal/workspace"
	"github.com/kyku/action/internal/workspace/awsstore"
)

// EngineOptions configure an Engine.
type EngineOptions struct {
	// StateDir holds the local state files, state.<env>.json (default
	// "./.kyku-state", which keeps itself out of git; what an older
	// default kept in ./.kyku is moved there on first use). Not used with
	// a remote Backend.
	StateDir string
	// Backend is an optional remote backend; nil keeps state in StateDir.
	Backend *Backend
	// DeployPrefix prefixes the cloud names of new resources (default: a
	// random 8-character hex prefix chosen by the first plan or apply and
	// kept in the state).
	DeployPrefix string
}

// Backend says where state lives.
type Backend struct {
	Type            string // "local" (default) or "s3"
	Path            string // local: the state directory (EngineOptions.StateDir wins when set)
	Bucket          string // s3
	Prefix          string // s3: key prefix, e.g. "prod/network"
	Region          string // s3
	Endpoint        string // s3: an S3-compatible endpoint
	UsePathStyle    bool   // s3
	KMSKeyID        string // s3: server-side encryption key
	BackupRetention int    // backups to keep; 0 keeps all
}

// PlanOptions tune one plan.
type PlanOptions struct {
	Provider *Provider // required
	Env      string    // environment workspace (default "")
	// AllowDestroyAll lets the plan destroy every resource in state
	// because the configuration has none; without it such a plan is
	// refused (IsDestroyAll).
	AllowDestroyAll bool
}

// ApplyOptions tune one apply. The zero value applies nothing: set
// AutoApprove, or give Confirm.
type ApplyOptions struct {
	Provider    *Provider // required
	AutoApprove bool      // apply without confirmation (default false)
	// Confirm, when set, is shown the plan under the lock before anything
	// changes (also with AutoApprove); false cancels with ErrNotConfirmed.
	// It is not called when the plan changes nothing.
	Confirm     func(*Plan) (bool, error)
	Parallelism int    // max concurrent provider operations (default 10)
	Env         string // environment workspace (default "", or the given plan's)
	// AllowDestroyAll lets the apply carry out a plan that destroys every
	// resource in state because the configuration has none (planned here,
	// or given: the word is needed again); without it such a plan is
	// refused (IsDestroyAll) and nothing changes. Destroy needs no word.
	AllowDestroyAll bool
}

// DestroyOptions tune one destroy; like ApplyOptions, the zero value
// destroys nothing.
type DestroyOptions struct {
	Provider    *Provider // required
	AutoApprove bool
	Confirm     func(*Plan) (bool, error)
	Parallelism int
	Env         string
}

// RefreshOptions tune one refresh.
type RefreshOptions struct {
	Provider *Provider // required
	Env      string
	// WriteState records what the cloud holds (backup first); false only
	// reports drift and writes nothing.
	WriteState bool
	// Config, when given, supplies ignoreChanges.
	Config *Config
}

// OutputOptions select the outputs GetOutputs evaluates.
type OutputOptions struct {
	Env string
	// Config, when given, evaluates its outputs against the state;
	// without it, the outputs recorded by the last apply.
	Config *Config
}

// Errors callers branch on (with errors.Is).
var (
	// ErrNotApproved: Apply or Destroy without AutoApprove or Confirm;
	// nothing was locked or changed.
	ErrNotApproved = errors.New("kyku: apply refused: not approved (set AutoApprove, or give a Confirm callback)")
	// ErrNotConfirmed: Confirm returned false; nothing changed.
	ErrNotConfirmed = errors.New("kyku: apply cancelled: plan not confirmed")
)

// IsStale reports whether err refuses a plan because the state (or the
// configuration given with it) moved on since it was planned, or because
// planning its configuration again gives other changes than it lists (it
// was edited, or the cloud changed); nothing was changed, plan again.
func IsStale(err error) bool { return engine.IsStale(err) }

// IsDestroyAll reports whether err refuses a plan that would destroy every
// resource in state because the configuration has none (an empty or
// truncated configuration); nothing was changed. Set AllowDestroyAll to
// mean it, or call Destroy.
func IsDestroyAll(err error) bool { return engine.IsDestroyAll(err) }

// Engine is the seed's KykuEngine: it runs the lifecycle (config →
// auto-subnets → graph → state → discovery → diff → plan → apply →
// persist) against the state EngineOptions name, with the provider each
// call is given.
type Engine struct {
	opts EngineOptions
	// moveLayout: StateDir is the default, where ./.kyku's state moves.
	moveLayout bool
}

// New returns an Engine. It opens nothing until a call needs the state.
func New(opts EngineOptions) *Engine {
	e := &Engine{}
	if opts.StateDir == "" && (opts.Backend == nil || opts.Backend.Path == "") {
		opts.StateDir = workspace.StateDirName
		e.moveLayout = opts.Backend == nil || opts.Backend.Type == "" || opts.Backend.Type == "local"
	}
	e.opts = opts
	return e
}

// open builds the internal engine for one call.
func (e *Engine) open(ctx context.Context, p provider.Provider, env string, parallelism int) (*engine.Engine, error) {
	if err := envname.Check(env); err != nil {
		return nil, fmt.Errorf("kyku: the options' Env: %w", err)
	}
	var bc *config.Backend
	if b := e.opts.Backend; b != nil {
		bc = &config.Backend{
			Type: b.Type, Path: b.Path, Bucket: b.Bucket, Prefix: b.Prefix, Region: b.Region, Endpoint: b.Endpoint,
			UsePathStyle: b.UsePathStyle, KMSKeyID: b.KMSKeyID, BackupRetention: b.BackupRetention,
		}
	}
	lock := statemgr.LockInfo{Who: "kyku Go API"}
	s := workspace.Settings{Env: env, StateDir: e.opts.StateDir, Getenv: os.Getenv, Engine: engine.Options{Lock: lock}, AWS: awsstore.Store{}, Google: google.DefaultClient,
		Plugins: workspace.Plugins{Verify: pgpverify.Verify}}
	if e.moveLayout {
		if _, err := workspace.MoveLayout(ctx, ".", s); err != nil {
			return nil, err
		}
	}
	backend, err := workspace.OpenBackend(ctx, bc, s)
	if err != nil {
		return nil, err
	}
	return engine.New(p, backend, engine.Options{
		Env: env, Parallelism: parallelism, DeployPrefix: e.opts.DeployPrefix, Lock: lock,
	}), nil
}

// Plan computes the changes that would make the cloud match cfg. It reads
// every resource in state from the cloud and writes nothing.
func (e *Engine) Plan(ctx context.Context, cfg *Config, opts PlanOptions) (*Plan, error) {
	if cfg == nil {
		return nil, errors.New("kyku: plan: no config")
	}
	if err := cfg.checkEnv(opts.Env); err != nil {
		return nil, err
	}
	p, err := opts.Provider.get()
	if err != nil {
		return nil, err
	}
	eng, err := e.open(ctx, p, opts.Env, 0)
	if err != nil {
		return nil, err
	}
	ip, err := eng.PlanWith(ctx, cfg.working(), engine.PlanOptions{AllowDestroyAll: opts.AllowDestroyAll})
	if err != nil {
		return nil, publicError(err)
	}
	return publicPlan(ip), nil
}

// Apply makes the cloud match cfg. Without a plan it plans first, under the
// same lock; with one (from Plan, or decoded from a plan file, which must
// verify) it applies exactly that plan, and cfg may be nil; given both, the
// plan is refused when cfg differs from the configuration planned. A plan
// is refused (IsStale) when the state moved on since it was planned, or
// when planning its configuration again against the current state, under
// the lock, gives other changes than it lists: what was shown is what is
// applied.
//
// Changes run in dependency order, at most Parallelism at once; a failure
// skips only what depends on it. The result's Err reports failures; the
// returned error, problems before anything was applied. Cancelling ctx
// stops starting changes: running ones finish and the state is saved.
func (e *Engine) Apply(ctx context.Context, cfg *Config, opts ApplyOptions, p *Plan) (*ApplyResult, error) {
	var ip *plan.Plan
	if p != nil {
		if ip = p.p; ip == nil {
			return nil, errors.New("kyku: apply: the plan was not made by Plan or decoded from a plan file")
		}
		if opts.Env == "" {
			opts.Env = ip.Environment
		}
	}
	if cfg == nil && ip == nil {
		return nil, errors.New("kyku: apply: need a config or a plan")
	}
	if err := cfg.checkEnv(opts.Env); err != nil {
		return nil, err
	}
	prov, err := opts.Provider.get()
	if err != nil {
		return nil, err
	}
	eng, err := e.open(ctx, prov, opts.Env, opts.Parallelism)
	if err != nil {
		return nil, err
	}
	ao := internalApply(opts.AutoApprove, opts.Confirm)
	ao.AllowDestroyAll = opts.AllowDestroyAll
	res, err := eng.Apply(ctx, cfg.working(), ao, ip)
	return publicResult(res), publicError(err)
}

// Destroy destroys everything in the environment's state, in reverse
// dependency order, refusing protected resources.
func (e *Engine) Destroy(ctx context.Context, opts DestroyOptions) (*DestroyResult, error) {
	prov, err := opts.Provider.get()
	if err != nil {
		return nil, err
	}
	eng, err := e.open(ctx, prov, opts.Env, opts.Parallelism)
	if err != nil {
		return nil, err
	}
	res, err := eng.Destroy(ctx, internalApply(opts.AutoApprove, opts.Confirm))
	return publicResult(res), publicError(err)
}

func internalApply(auto bool, confirm func(*Plan) (bool, error)) engine.ApplyOptions {
	o := engine.ApplyOptions{AutoApprove: auto}
	if confirm != nil {
		o.Confirm = func(ip *plan.Plan) (bool, error) { return confirm(publicPlan(ip)) }
	}
	return o
}

// Refresh reads every resource in state and reports drift per property;
// with WriteState it records what the cloud holds.
func (e *Engine) Refresh(ctx context.Context, opts RefreshOptions) (*RefreshResult, error) {
	prov, err := opts.Provider.get()
	if err != nil {
		return nil, err
	}
	eng, err := e.open(ctx, prov, opts.Env, 0)
	if err != nil {
		return nil, err
	}
	res, err := eng.Refresh(ctx, engine.RefreshOptions{WriteState: opts.WriteState, Config: opts.Config.working()})
	if err != nil {
		return nil, publicError(err)
	}
	return publicRefresh(res), nil
}

// ReadState returns the state of environment env ("" for the default), or
// nil when there is none yet. It writes nothing.
func (e *Engine) ReadState(ctx context.Context, env string) (*StateFile, error) {
	eng, err := e.open(ctx, nil, env, 0)
	if err != nil {
		return nil, err
	}
	st, err := eng.ReadState(ctx)
	if err != nil {
		return nil, err
	}
	return publicState(st), nil
}

// GetOutputs returns the outputs of the environment: the config's outputs
// evaluated against the state (unknown ones left out; one reading a data
// source as the last apply recorded it), or those recorded by the last
// apply.
func (e *Engine) GetOutputs(ctx context.Context, opts OutputOptions) (map[string]any, error) {
	eng, err := e.open(ctx, nil, opts.Env, 0)
	if err != nil {
		return nil, err
	}
	outs, _, err := eng.Outputs(ctx, opts.Config.working())
	return outs, err
}

// BuildGraph returns cfg's dependency graph with each resource's level,
// auto-subnets included. It needs no provider and no state.
func (e *Engine) BuildGraph(cfg *Config) (*Graph, error) {
	if cfg == nil {
		return nil, errors.New("kyku: build graph: no config")
	}
	w := cfg.working()
	// Which zones the provider lists changes the subnets' zone property,
	// never the graph: any name will do here.
	if err := config.InjectAutoSubnets(w, []string{"zone"}); err != nil {
		return nil, fmt.Errorf("kyku: build graph: %w", err)
	}
	g := config.BuildGraph(w)
	levels, err := g.Levels()
	if err != nil {
		return nil, fmt.Errorf("kyku: build graph: %w", err)
	}
	return publicGraph(w, g, levels), nil
}
