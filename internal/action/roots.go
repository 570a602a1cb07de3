package action

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/zclconf/go-cty/cty/function"
	"golang.org/x/oauth2/google"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/tfinstall"
	"github.com/kyku/action/internal/tfmodule"
	"github.com/kyku/action/internal/tfroots"
	"github.com/kyku/action/internal/workspace"
	"github.com/kyku/action/internal/workspace/awsstore"
)

// Terraform roots (input terraform-roots: changed). Besides kyku.yaml, a
// pull request's plan, its apply and the drift check cover every
// Terraform root it touches, found as Atlantis finds them (package
// tfroots): one project per root, named by its directory, with its own
// plan comment, saved plan, apply and drift issue. A root is read from
// the repository's archive at a commit, written to disk for the run
// (never the checkout, which may be the pull request's code), and its
// state opened where its backend block ON THE DEFAULT BRANCH says, with
// input backend-config: a pull request that changes where a root's
// state is, or which states its terraform_remote_state data sources
// read, is refused in one line, and its apply with it. A root the
// default branch lacks is refused unless input terraform-new-roots
// allows it; then its own backend is planned and only the merge applies
// it. A root's local state lives in the checkout beside it (input
// local-state decides, as for kyku.yaml).

// rootTrees are the repository's trees this run wrote to disk, by ref,
// and the roots loaded from them.
type rootTrees struct {
	mu     sync.Mutex
	dir    string            // holds every tree; removed when the run ends
	tops   map[string]string // ref → the tree's top
	loaded map[[2]string]rootLoad
}

type rootLoad struct {
	l   *tfroots.Loaded
	err error
}

// remove deletes what the run wrote.
func (t *rootTrees) remove() {
	if t != nil && t.dir != "" {
		_ = os.RemoveAll(t.dir)
	}
}

// rootTop is the top of the repository's tree at ref, on disk.
func (r *run) rootTop(ctx context.Context, ref string) (string, error) {
	t := r.trees
	t.mu.Lock()
	defer t.mu.Unlock()
	if top, ok := t.tops[ref]; ok {
		return top, nil
	}
	files, err := r.filesAt(ctx, ref)
	if err != nil {
		return "", err
	}
	if t.dir == "" {
		base := r.env.Getenv("RUNNER_TEMP")
		if base != "" {
			if err := os.MkdirAll(base, 0o755); err != nil {
				return "", fmt.Errorf("write the repository at %s: %w", ref, err)
			}
		}
		if t.dir, err = os.MkdirTemp(base, "kyku-roots-"); err != nil {
			return "", fmt.Errorf("write the repository at %s: %w", ref, err)
		}
	}
	top := filepath.Join(t.dir, strconv.Itoa(len(t.tops)))
	if err := tfroots.Materialize(top, files); err != nil {
		return "", fmt.Errorf("at %s: %w", refName(ref), err)
	}
	t.tops[ref] = top
	return top, nil
}

// filesAt are the repository's files at ref, read through the API; ""
// is the checkout, when it is the default branch as such (schedule): its
// regular files, .git left out.
func (r *run) filesAt(ctx context.Context, ref string) (map[string][]byte, error) {
	if ref != "" {
		files, err := r.src.tree(ctx, ref)
		if err != nil {
			return nil, fmt.Errorf("read the repository at %s: %w", ref, err)
		}
		return files, nil
	}
	files := map[string][]byte{}
	var total int64
	err := filepath.WalkDir(r.src.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(r.src.root, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if total += int64(len(data)); total > maxTarball {
			return fmt.Errorf("more than %d bytes", maxTarball)
		}
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the checkout: %w", err)
	}
	return files, nil
}

// loadRoot is the root at ref, expanded for input environment (its
// workspace) with input vars and TF_VAR_<name>; review.ErrNoRoot when that
// commit has none there.
func (r *run) loadRoot(ctx context.Context, ref, root string) (*tfroots.Loaded, error) {
	key := [2]string{ref, root}
	r.trees.mu.Lock()
	got, ok := r.trees.loaded[key]
	r.trees.mu.Unlock()
	if ok {
		return got.l, got.err
	}
	l, err := r.readRoot(ctx, ref, root)
	if l != nil {
		r.learn(l.Config, nil)
	}
	r.trees.mu.Lock()
	r.trees.loaded[key] = rootLoad{l, err}
	r.trees.mu.Unlock()
	return l, err
}

func (r *run) readRoot(ctx context.Context, ref, root string) (*tfroots.Loaded, error) {
	top, err := r.rootTop(ctx, ref)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(top, filepath.FromSlash(root))
	if !tfconfig.IsConfigDir(dir) {
		return nil, fmt.Errorf("%s at %s: %w", root, refName(ref), review.ErrNoRoot)
	}
	var vars []tfconfig.VarArg
	for _, name := range slices.Sorted(maps.Keys(r.in.Vars)) {
		vars = append(vars, tfconfig.VarArg{Name: name, Value: r.in.Vars[name]})
	}
	in := tfconfig.Inputs{Vars: vars, Getenv: r.env.Getenv, Workspace: r.in.Environment, Now: r.env.Now,
		ProviderFunctions: r.rootFunctions(ctx, root, dir)}
	if err := r.installModules(ctx, top, dir, in); err != nil {
		return nil, fmt.Errorf("%s at %s: %w", root, refName(ref), err)
	}
	return tfroots.Load(ctx, top, root, in, r.in.BackendConfig)
}

// rootFunctions serves the calls of a root's providers' functions
// (provider::NAME::FUNCTION) while it is read, at any commit: each
// provider installed as the root's resources' are, from the lock of the
// default branch (a provider only a pull request locks is refused) and
// confined alike, started once in the run, unconfigured, and stopped when
// the run ends.
func (r *run) rootFunctions(ctx context.Context, root, dir string) tfconfig.ProviderFunctions {
	return func(local, source, version string) (map[string]function.Function, error) {
		plugins, err := r.pluginsWith(ctx, workspace.FunctionConfig(local, source, version), path.Join(root, tfinstall.LockFileNameOf(true)))
		if err != nil {
			return nil, err
		}
		return workspace.ProviderFunctions(ctx, workspace.Settings{Getenv: r.env.Getenv, BaseDir: dir, Plugins: plugins}, &r.functions, local, source, version)
	}
}

// installModules installs the modules the root (or a local module it
// runs) calls that are not local paths, as kyku init does (over https and
// ssh only; git with the providers' environment), into the tree written
// for this run; a source or version reading variables is evaluated with
// vars, as the root is then loaded.
func (r *run) installModules(ctx context.Context, top, dir string, vars tfconfig.Inputs) error {
	if !tfroots.NeedsInstall(dir, vars) {
		return nil
	}
	in := &tfmodule.Installer{HTTP: &http.Client{Timeout: 5 * time.Minute}, Boundary: top, Credentials: r.registryCredentials(),
		Calls: tfconfig.EarlyCalls(vars)}
	in.Git.Env = providerEnv(r.env.Environ)
	_, diags := in.Install(ctx, dir, false)
	return tfconfig.DiagnosticsError(diags)
}

// rootSettings are the review rules of one root: the run's, the root
// its project.
func (r *run) rootSettings(root string) review.Settings {
	s := r.settings()
	s.Project = tfroots.Project(root)
	return s
}

// rootRefs say where root's use reads what: its state opened where the
// default branch's backend says (baseRef), a root the default branch
// lacks as review.TrustedRoot decides, with input terraform-new-roots.
func (r *run) rootRefs(root string, use review.RootUse, head, merge string) review.RootRefs {
	return review.RootRefs{Root: root, Use: use, Base: r.baseRef(), Head: head, Merge: merge, NewRoots: r.in.NewRoots, RulesFrom: r.settings().RulesFrom}
}

// rootDeps are r.deps for one root: its configuration at a ref, the
// trusted one review.TrustedRoot names, its state opened as openRoot says.
func (r *run) rootDeps(refs review.RootRefs) review.Deps {
	d := r.deps
	d.Source = func(ctx context.Context, ref string) (*config.Config, error) {
		l, err := r.loadRoot(ctx, ref, refs.Root)
		if err != nil {
			return nil, err
		}
		return l.Config, nil
	}
	d.Trusted = func(ctx context.Context) (*config.Config, error) {
		l, err := r.trustedRoot(ctx, refs)
		if err != nil {
			return nil, err
		}
		return l.Config, nil
	}
	d.Open = func(ctx context.Context, cfg *config.Config, env string) (*review.Workspace, error) {
		return r.openRoot(ctx, refs, cfg, env)
	}
	return d
}

// trustedRoot is the root whose backend opens the state
// (review.TrustedRoot).
func (r *run) trustedRoot(ctx context.Context, refs review.RootRefs) (*tfroots.Loaded, error) {
	return review.TrustedRoot(ctx, func(ctx context.Context, ref string) (*tfroots.Loaded, error) {
		return r.loadRoot(ctx, ref, refs.Root)
	}, refs)
}

// openRoot opens the root's state where the trusted backend says, once
// the pull request's head is known to say the same (backend, and the
// states terraform_remote_state reads): otherwise the one-line refusal.
func (r *run) openRoot(ctx context.Context, refs review.RootRefs, cfg *config.Config, env string) (*review.Workspace, error) {
	trusted, err := r.trustedRoot(ctx, refs)
	if err != nil {
		return nil, err
	}
	if refs.Head != "" {
		head, err := r.loadRoot(ctx, refs.Head, refs.Root)
		if err != nil {
			return nil, err
		}
		if err := tfroots.Guard(trusted, head); err != nil {
			return nil, err
		}
	}
	if err := r.checkRootLocalState(trusted); err != nil {
		return nil, err
	}
	dir := filepath.Join(r.src.root, filepath.FromSlash(refs.Root))
	ts := &workspace.TerraformState{
		Type: trusted.Backend.Type, Args: trusted.Backend.Args, Dir: dir, Where: trusted.Backend.Pos.String(), Provider: trusted.StateProvider, KykuType: trusted.KykuType,
	}
	plugins, err := r.pluginsWith(ctx, cfg, path.Join(refs.Root, tfinstall.LockFileNameOf(true)))
	if err != nil {
		return nil, err
	}
	ws, err := workspace.Open(ctx, cfg, workspace.Settings{
		// The providers run in the root's directory as the trusted commit
		// has it; a local state lives in the checkout, which outlives it.
		Env: env, Provider: r.in.Provider, Getenv: r.env.Getenv, BaseDir: trusted.Dir, NoFormerCheck: true, Terraform: ts,
		AWS: awsstore.Store{}, Google: google.DefaultClient,
		Engine: engine.Options{
			Parallelism: r.in.Parallelism, Now: r.env.Now, Rand: r.env.Rand, Secrets: &r.secrets, Version: r.env.Version,
			Lock: statemgr.LockInfo{Who: "github-actions@" + r.ghctx.Repository, Actor: r.ghctx.Actor, RunURL: r.runURL()},
		},
		Plugins:     plugins,
		LockTimeout: r.in.LockTimeout,
	}, r.env.Providers)
	if err != nil {
		return nil, err
	}
	out := &review.Workspace{Engine: ws.Engine, Backend: ws.Backend, Close: ws.Close}
	if refs.Head != "" {
		// What its count or for_each reads is read under the same rule.
		out.Complete = func(ctx context.Context, cfg *config.Config) (*config.Config, error) {
			return tfroots.GuardedComplete(ctx, trusted, refs.Root, cfg, ws.Engine.KnownReader)
		}
	}
	return out, nil
}

// checkRootLocalState refuses a root whose state is local (no backend
// block, or a local one) unless input local-state allows it.
func (r *run) checkRootLocalState(l *tfroots.Loaded) error {
	if r.in.LocalState == AllowLocalState || (l.Backend.Type != "" && l.Backend.Type != "local") {
		return nil
	}
	e := &LocalStateError{File: l.Root, Where: "the default branch"}
	if p := l.Backend.Pos; p.File != "" {
		e.File, e.Line = p.File, p.Line
	}
	return e
}

// refName names ref in messages ("" is the checkout).
func refName(ref string) string {
	if ref == "" {
		return "the checkout"
	}
	return ref
}
