package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/bot/tenancy"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/tfinstall"
	"github.com/kyku/action/internal/tfroots"
	"github.com/kyku/action/internal/workspace"
)

// Terraform roots (settings: terraform-roots: true). Besides kyku.yaml's
// projects, a pull request's plan covers every Terraform root it
// touches, found as Atlantis finds them (package tfroots): one project
// per root, named by its directory, with its own check run and plan
// comment. A root is read from the repository's archive (written to a
// directory of the job's own, removed when it ends), and its state
// opened where its backend block ON THE DEFAULT BRANCH says, once the
// pull request is known not to move it (tfroots.Guard) and the
// operator's policy grants that place to the repository
// (tenancy.ConfineTerraform): each refusal is one line on the root's plan
// comment. A root the default branch lacks is refused unless the
// settings allow new roots (rootsnew.go).

// rootTrees are the trees one job wrote to disk, by ref.
type rootTrees struct {
	src  *sources
	dir  string
	tops map[string]string
}

func newRootTrees(src *sources) (*rootTrees, error) {
	dir, err := os.MkdirTemp("", "kyku-bot-roots-")
	if err != nil {
		return nil, fmt.Errorf("write the repository's roots: %w", err)
	}
	return &rootTrees{src: src, dir: dir, tops: map[string]string{}}, nil
}

func (t *rootTrees) remove() { _ = os.RemoveAll(t.dir) }

// top is the top of the repository's tree at ref, on disk.
func (t *rootTrees) top(ctx context.Context, ref string) (string, error) {
	if top, ok := t.tops[ref]; ok {
		return top, nil
	}
	files, err := t.src.tree(ctx, ref)
	if err != nil {
		return "", fmt.Errorf("read source at %s: %w", ref, err)
	}
	top := filepath.Join(t.dir, fmt.Sprint(len(t.tops)))
	if err := tfroots.Materialize(top, files); err != nil {
		return "", fmt.Errorf("at %s: %w", ref, err)
	}
	t.tops[ref] = top
	return top, nil
}

// load is root at ref in its default workspace, with the values its
// files give (the bot takes no variable of its own environment);
// review.ErrNoRoot when that commit has none there. A root calling a module
// that is not a local path is refused: the bot installs none.
func (t *rootTrees) load(ctx context.Context, ref, root string) (*tfroots.Loaded, error) {
	top, err := t.top(ctx, ref)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(top, filepath.FromSlash(root))
	if !tfconfig.IsConfigDir(dir) {
		return nil, fmt.Errorf("%s at %s: %w", root, ref, review.ErrNoRoot)
	}
	in := tfconfig.Inputs{Getenv: func(string) string { return "" }}
	if tfroots.NeedsInstall(dir, in) {
		return nil, fmt.Errorf("%s at %s: the root calls a module that is not a local path, which the bot does not install", root, ref)
	}
	return tfroots.Load(ctx, top, root, in, nil)
}

// touchedRoots are the Terraform roots pull request ev touches at its
// head, with terraform-roots on.
func (rt *router) touchedRoots(ctx context.Context, ev event, s *settings.Settings, src *sources, changed []string) ([]string, error) {
	if !s.TerraformRoots || !slices.ContainsFunc(changed, tfroots.Touches) {
		return nil, nil
	}
	trees, err := newRootTrees(src)
	if err != nil {
		return nil, err
	}
	defer trees.remove()
	top, err := trees.top(ctx, ev.headSHA)
	if err != nil {
		return nil, err
	}
	found := tfroots.Find(top, changed, tfroots.Options{})
	if len(found.Links) > 0 {
		return nil, fmt.Errorf("%s: a symbolic link among a Terraform root's files is not read: commit the file itself", strings.Join(found.Links, ", "))
	}
	return found.Roots, nil
}

// rootTarget is the target a root's jobs and review rules go by.
func rootTarget(root string) settings.Target {
	return settings.Target{Project: settings.Project{Name: tfroots.Project(root), Config: root}}
}

// rootPlanJob plans Terraform root root of pull request ev at its head.
func (rt *router) rootPlanJob(ev event, repo *github.Repo, s *settings.Settings, root string, src *sources) queue.Job {
	t := rootTarget(root)
	return queue.Job{
		Kind:  "plan",
		Key:   targetKey(ev, t),
		Attrs: []slog.Attr{slog.String("repo", ev.fullName()), slog.Int("pr", ev.number), slog.String("root", root)},
		Run: func(ctx context.Context) (string, error) {
			name := CheckName(t)
			id, err := rt.openCheckRun(ctx, repo, name, ev.headSHA)
			if err != nil {
				return "", err
			}
			finish := func(check github.CheckRun) error { return repo.UpdateCheck(context.WithoutCancel(ctx), id, check) }
			trees, err := newRootTrees(src)
			if err != nil {
				return "", err
			}
			defer trees.remove()
			head, err := trees.load(ctx, ev.headSHA, root)
			if err != nil {
				return "config-error", finish(review.PlanFailedCheck(name, review.ConfigInvalid, err.Error(), ""))
			}
			// A new root not allowed is planned with no trusted
			// configuration: opening the state refuses, the comment says why.
			trusted, err := trees.trusted(ctx, rootRefs(s, root, review.RootPlan, ev.defaultBranch, ev.headSHA, ""))
			if err != nil {
				return "untrusted", finish(review.PlanFailedCheck(name, review.NoTrustedConfig, err.Error(), ev.defaultBranch))
			}
			trustedCfg := trusted.config()
			out, err := rt.rules.Plan(ctx, rt.rootDeps(ev, repo, src, trees, root, trusted, head), review.PlanRequest{
				Settings: reviewSettings(s, t), Number: ev.number, HeadSHA: ev.headSHA, Config: head.Config, Trusted: trustedCfg,
			})
			if err != nil {
				// Error text may quote a sensitive value: scrubbed, as
				// for kyku.yaml's plans.
				err = progress.SecretsOf(head.Config, nil).Add(progress.SecretsOf(trustedCfg, nil)).Error(err)
				_ = finish(review.PlanFailedCheck(name, review.PlanFailed, err.Error(), ""))
				return "", err
			}
			if err := finish(out.PlanCheck(name)); err != nil {
				return "", err
			}
			return "planned", nil
		},
	}
}

// rootDeps are what the review rules need for one root: its
// configuration at a ref read from trees, the trusted one (or why the
// root has none), its state opened by rootOpener.
func (rt *router) rootDeps(ev event, repo *github.Repo, src *sources, trees *rootTrees, root string, trusted rootTrust, head *tfroots.Loaded) review.Deps {
	d := rt.deps(ev, repo, src, rootTarget(root))
	d.Source = func(ctx context.Context, ref string) (*config.Config, error) {
		l, err := trees.load(ctx, ref, root)
		if err != nil {
			return nil, err
		}
		return l.Config, nil
	}
	d.Trusted = func(context.Context) (*config.Config, error) {
		if trusted.l == nil {
			return nil, trusted.refused
		}
		return trusted.l.Config, nil
	}
	d.Open = rt.rootOpener(ev, src, trusted, head)
	return d
}

// rootOpener opens root's state where its trusted root (the default
// branch's) says, once head (nil: none to compare, the drift check) is
// known to say the same, and the operator's policy grants that place to
// the repository (with the bucket's role, when it names one).
func (rt *router) rootOpener(ev event, src *sources, tr rootTrust, head *tfroots.Loaded) review.Opener {
	grant := rt.cfg.Policy.For(ev.owner, ev.repo, ev.repoID)
	return func(ctx context.Context, cfg *config.Config, env string) (*review.Workspace, error) {
		trusted := tr.l
		if trusted == nil {
			return nil, tr.refused
		}
		if head != nil {
			if err := tfroots.Guard(trusted, head); err != nil {
				return nil, err
			}
		}
		b := trusted.Backend
		c, err := tenancy.ConfineTerraform(cfg, tenancy.TerraformState{Type: b.Type, Args: b.Args, Pos: b.Pos, SharedFiles: rt.sharedRootFiles}, env, grant)
		if err != nil {
			return nil, tfroots.RepoPaths(err, trusted.Top)
		}
		var lock *tfinstall.Lock
		if len(c.Config.Providers) > 0 {
			if lock, err = src.lockFile(ctx, trusted.Root+"/"+tfinstall.TerraformLockFileName, ev.defaultBranch); err != nil {
				return nil, err
			}
		}
		// A bucket granted with a role: the state is read and written with
		// the role, assumed for this repository, as a kyku.yaml backend's.
		creds, err := rt.roles.credentials(grant.Repo, c.Role)
		if err != nil {
			return nil, fmt.Errorf("credentials for %s: %w", grant.Repo, err)
		}
		t := Tenant{Repo: grant.Repo, ID: grant.ID, Namespace: grant.Namespace(), Legacy: grant.LegacyNamespace(),
			Created: ev.created, Credentials: creds, Lock: lock, ProviderGrants: grant.ProviderGrants, log: rt.log,
			Terraform: &workspace.TerraformState{Type: b.Type, Args: b.Args, Dir: trusted.Dir, Where: b.Pos.String(), Provider: trusted.StateProvider, KykuType: trusted.KykuType}}
		ws, err := rt.open(ctx, t, c.Config, env)
		if err != nil || head == nil {
			return ws, err
		}
		// What its count or for_each reads is read under the same rule.
		ws.Complete = func(ctx context.Context, cfg *config.Config) (*config.Config, error) {
			return tfroots.GuardedComplete(ctx, trusted, trusted.Root, cfg, ws.Engine.KnownReader)
		}
		return ws, nil
	}
}

// withConfig drops, with terraform-roots on, the kyku.yaml targets whose
// project has no configuration at ref: a repository of Terraform roots
// alone is not asked for a kyku.yaml it never had.
func withConfig(ctx context.Context, s *settings.Settings, src *sources, ref string, targets []settings.Target) ([]settings.Target, error) {
	if !s.TerraformRoots || len(targets) == 0 {
		return targets, nil
	}
	files, err := src.tree(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("read source at %s: %w", ref, err)
	}
	var out []settings.Target
	for _, t := range targets {
		if _, err := t.Project.ConfigFiles(files); !errors.Is(err, settings.ErrNoConfig) {
			out = append(out, t)
		}
	}
	return out, nil
}
