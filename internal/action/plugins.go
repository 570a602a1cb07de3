package action

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/tfinstall"
	"github.com/kyku/action/internal/tfinstall/pgpverify"
	"github.com/kyku/action/internal/workspace"
)

// Terraform providers in the Action. A provider binary runs with the
// job's credentials, and a pull request can write both the providers:
// section and the lock file. So what runs is decided by the default
// branch: the workspace is opened with its configuration (review.Deps:
// the trusted one, whose providers: section names sources, versions and
// settings), and every package must match the lock file beside that
// configuration on the default branch (trustedLock), never the pull
// request's. A pull request that changes either is planned with the
// default branch's, and its plan comment says so at the top; its changes
// take effect once merged. Packages are installed from input
// plugin-mirror, or from their registries (signatures and checksums
// checked) into KYKU_PLUGIN_CACHE, which action.yml keeps between runs
// with actions/cache (a restored package is checked against the lock like
// any other). Whenever the configuration may be a pull request's (input
// provider-sandbox: pull-requests, the default), every provider runs
// sandboxed (tfplugin.Sandbox), with the step's environment less Kyku's
// own secrets and the files of input provider-files (workspace.OwnSandbox:
// as root, no metadata address either): a data source the pull request
// adds reads nothing else of the job's.

// trustedLock is the lock file name (repository-relative) on the default
// branch (an empty lock when there is none: then no provider may run).
func (r *run) trustedLock(ctx context.Context, name string) (*tfinstall.Lock, error) {
	if r.src.repo == nil {
		return r.checkoutLock(name)
	}
	files, err := r.src.tree(ctx, r.defaultBranch())
	if err != nil {
		return nil, fmt.Errorf("read %s on the default branch: %w", name, err)
	}
	data, ok := files[name]
	if !ok {
		return &tfinstall.Lock{Providers: map[tfinstall.Source]*tfinstall.Locked{}}, nil
	}
	lock, ds := tfinstall.ParseLock(name+" (default branch)", data)
	if len(ds) > 0 {
		return nil, ds
	}
	return lock, nil
}

// checkoutLock reads the lock from the checkout (no API: tests and runs
// whose checkout is the default branch).
func (r *run) checkoutLock(name string) (*tfinstall.Lock, error) {
	return tfinstall.ReadLock(filepath.Join(r.src.root, filepath.FromSlash(name)))
}

// plugins are the workspace's plugin settings for cfg, whose lock file is
// the one beside it.
func (r *run) plugins(ctx context.Context, cfg *config.Config) (workspace.Plugins, error) {
	return r.pluginsWith(ctx, cfg, path.Join(r.src.dir(cfg), tfinstall.LockFileNameOf(cfg.Terraform)))
}

// pluginsWith are the workspace's plugin settings for cfg, whose lock
// file on the default branch is lockName (repository-relative).
func (r *run) pluginsWith(ctx context.Context, cfg *config.Config, lockName string) (workspace.Plugins, error) {
	pl := workspace.Plugins{CacheDir: r.env.Getenv("KYKU_PLUGIN_CACHE"), Env: providerEnv(r.env.Environ), Credentials: r.registryCredentials(), Verify: pgpverify.Verify}
	if len(cfg.Providers) == 0 {
		return pl, nil
	}
	if v := r.env.Getenv("KYKU_PROVIDER_RENEW"); v != "" {
		g, err := workspace.ParseRenewGrowth(v)
		if err != nil {
			return pl, err
		}
		pl.RenewGrowth = g
	}
	if m := r.in.PluginMirror; m != "" {
		clean := path.Clean(m)
		if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			return pl, fmt.Errorf("input plugin-mirror: %q is outside the repository", m)
		}
		pl.Mirror = filepath.Join(r.src.root, filepath.FromSlash(clean))
	}
	lock, err := r.trustedLock(ctx, lockName)
	if err != nil {
		return pl, err
	}
	pl.Lock = lock
	if r.in.ProviderSandbox == "always" || r.in.ProviderSandbox == "pull-requests" && r.mayRunPullRequestConfig() {
		files := make([]string, len(r.in.ProviderFiles))
		for i, f := range r.in.ProviderFiles {
			files[i] = f
			if !filepath.IsAbs(f) {
				files[i] = filepath.Join(r.src.root, filepath.FromSlash(f))
			}
		}
		sb, err := workspace.OwnSandbox(r.env.Getenv("KYKU_PROVIDER_DENY"), files)
		if err != nil {
			return pl, err
		}
		pl.Confine = workspace.ConfineAll(sb, pl.Env)
	}
	return pl, nil
}

// providerEnv is the step's environment without what only Kyku may use:
// its inputs (the GitHub token among them), the job's token and the
// runner's own service tokens. The providers keep their clouds'
// credentials (and the OIDC request variables some use to get them).
func providerEnv(environ func() []string) []string {
	if environ == nil {
		return nil
	}
	var out []string
	for _, kv := range environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "INPUT_"), k == "GITHUB_TOKEN", k == "ACTIONS_RUNTIME_TOKEN", k == "ACTIONS_RUNTIME_URL",
			k == "ACTIONS_CACHE_URL", k == "ACTIONS_RESULTS_URL", strings.HasPrefix(k, "KYKU_STATE_PASSPHRASE"), k == "KYKU_HTTP_PASSWORD",
			strings.HasPrefix(k, "TF_TOKEN_"): // registry tokens are Kyku's to send to their registries
			continue
		}
		out = append(out, kv)
	}
	return out
}
