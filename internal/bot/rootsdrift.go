package bot

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/tfroots"
)

// allRoots are every Terraform root of the default branch (its tip),
// with terraform-roots on, those f keeps (project: the root's name).
func (rt *router) allRoots(ctx context.Context, ev event, s *settings.Settings, src *sources, f driftFilter) ([]string, error) {
	if !s.TerraformRoots || f.env != "" {
		return nil, nil
	}
	files, err := src.tree(ctx, ev.defaultBranch)
	if err != nil {
		return nil, fmt.Errorf("read source at %s: %w", ev.defaultBranch, err)
	}
	at := ev
	at.headSHA = ev.defaultBranch
	roots, err := rt.touchedRoots(ctx, at, s, src, tfroots.Configs(files))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, root := range roots {
		if f.project == "" || f.project == tfroots.Project(root) {
			out = append(out, root)
		}
	}
	return out, nil
}

// rootDriftJob checks Terraform root root for drift: its state where the
// default branch's backend says (the policy judging the place as for a
// plan), one drift issue per root.
func (rt *router) rootDriftJob(ev event, repo *github.Repo, s *settings.Settings, root string, src *sources) queue.Job {
	t := rootTarget(root)
	key := targetKey(ev, t)
	return queue.Job{
		Kind:  "drift",
		Key:   key,
		Attrs: []slog.Attr{slog.String("repo", ev.fullName()), slog.String("root", root)},
		Run: func(ctx context.Context) (string, error) {
			rt.driftPending.Delete(key)
			trees, err := newRootTrees(src)
			if err != nil {
				return "", err
			}
			defer trees.remove()
			trusted, err := trees.load(ctx, ev.defaultBranch, root)
			if err != nil {
				return "config-error", fmt.Errorf("drift check of %s: %w", root, err)
			}
			out, err := rt.rules.Drift(ctx, rt.rootDeps(ev, repo, src, trees, root, rootTrust{l: trusted}, nil), review.DriftRequest{
				Settings: reviewSettings(s, t), Config: trusted.Config, WriteState: s.Drift.WriteState,
			})
			return driftResult(out, err)
		},
	}
}
