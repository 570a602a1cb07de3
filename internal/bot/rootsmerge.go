package bot

import (
	"context"
	"errors"
	"log/slog"

	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/review"
)

// routeMergeRoots applies the saved plan of every Terraform root the
// merged pull request touched (files; found at the merge commit), each on its
// own key, with terraform-roots on in the default branch's settings as
// they were before the merge (s).
func (rt *router) routeMergeRoots(ctx context.Context, ev event, repo *github.Repo, s *settings.Settings, files []string, src *sources) (int, error) {
	if !s.TerraformRoots {
		return 0, nil
	}
	at := ev
	at.headSHA = ev.mergeSHA // the roots as the merge has them
	roots, err := rt.touchedRoots(ctx, at, s, src, files)
	if err != nil {
		return 0, err
	}
	for _, root := range roots {
		if err := rt.runner.Spawn(ctx, rt.rootMergeJob(ev, repo, root, src)); err != nil {
			return 0, err
		}
	}
	return len(roots), nil
}

// rootMergeJob applies root's saved plan for the merged pull request's
// head, on the state the default branch's backend (before the merge)
// names, once the head is known not to move it.
func (rt *router) rootMergeJob(ev event, repo *github.Repo, root string, src *sources) queue.Job {
	t := rootTarget(root)
	return queue.Job{
		Kind:  "merge-apply",
		Key:   targetKey(ev, t),
		Attrs: []slog.Attr{slog.String("repo", ev.fullName()), slog.Int("pr", ev.number), slog.String("root", root)},
		Run: func(ctx context.Context) (string, error) {
			// Judged by the merge's rules as they are read when the job
			// runs, after any wait behind the root's other jobs.
			s, outcome, err := rt.rootSettingsNow(ctx, ev, repo, root)
			if s == nil {
				return outcome, err
			}
			trees, err := newRootTrees(src)
			if err != nil {
				return "", err
			}
			defer trees.remove()
			// A new root: the merge commit's backend, when the settings
			// allow new roots (else refused when the state is opened).
			trusted, err := trees.trusted(ctx, rootRefs(s, root, review.RootMerge, ev.rulesRef, ev.headSHA, ev.mergeSHA))
			if err != nil {
				return "", err
			}
			head, headErr := trees.load(ctx, ev.headSHA, root)
			if headErr != nil && !errors.Is(headErr, review.ErrNoRoot) {
				return "", headErr
			}
			d := rt.rootDeps(ev, repo, src, trees, root, trusted, head)
			if head == nil {
				// A root of the merge the reviewed head lacks (the default
				// branch added it since the pull request branched): no plan
				// of it was reviewed; the apply says so on the pull request,
				// as the Action's does.
				d.Open = func(context.Context, *config.Config, string) (*review.Workspace, error) { return nil, headErr }
			}
			return applyOutcome(rt.rules.ApplyMerged(ctx, d, reviewSettings(s, t), ev.mergeSHA, ev.merger))
		},
	}
}
