package bot

import (
	"context"
	"errors"
	"log/slog"

	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/review"
)

// routeMerge applies, when the settings say so, the saved plans of the
// projects a pull request merged into the default branch touched. The
// settings and the policies are the default branch's as it was before the
// merge, never the pull request's own (see mergerules.go). With promotion,
// a project's environments are applied one after the other in that order,
// each job queuing the next only when it applied completely; otherwise
// they run side by side.
func (rt *router) routeMerge(ctx context.Context, ev event, repo *github.Repo) (string, error) {
	// Every rule that judges the merge comes from before it.
	if err := setMergeRefs(ctx, repo, &ev); err != nil {
		if _, cerr := repo.CreateComment(ctx, ev.number, mergeRefsReply(err)); cerr != nil {
			err = errors.Join(err, cerr)
		}
		return "", err
	}
	s, err := loadSettings(ctx, repo, ev.rulesRef)
	if isDiag(err) {
		_, cerr := repo.CreateComment(ctx, ev.number, settingsMergeReply(err))
		return "settings-error", cerr
	}
	if err != nil {
		return "", err
	}
	if !s.Apply.OnMerge() {
		return "ignored", nil
	}
	if s.Execution == settings.Actions {
		// The workflow's own push trigger applies the merge (the Action
		// judges a merge by its push): a dispatch could not be.
		rt.log.Info("merge left to the workflow's push trigger (execution: actions)", "repo", ev.fullName(), "pr", ev.number)
		return "left-to-actions", nil
	}
	files, err := repo.ChangedFiles(ctx, ev.number)
	if err != nil {
		return "", err
	}
	src := newSources(repo, rt.maxSrc) // one per event: roots and projects share its trees
	roots, err := rt.routeMergeRoots(ctx, ev, repo, s, files, src)
	if err != nil {
		return "", err
	}
	if len(s.Promotion) == 0 {
		outcome, err := rt.routeTouched(ctx, ev, repo, s, "apply", ev.mergeSHA, files, src, func(t settings.Target, src *sources) queue.Job {
			return rt.mergeJob(ev, repo, s, []settings.Target{t}, src)
		})
		if outcome == "untouched" && roots > 0 {
			outcome = "routed"
		}
		return outcome, err
	}
	var order []string // projects, in file order
	chains := map[string][]settings.Target{}
	for _, t := range s.Touched(files) {
		if _, ok := chains[t.Project.Name]; !ok {
			order = append(order, t.Project.Name)
		}
		chains[t.Project.Name] = append(chains[t.Project.Name], t)
	}
	if len(order) == 0 {
		return "untouched", nil
	}
	for _, name := range order {
		if err := rt.runner.Spawn(ctx, rt.mergeJob(ev, repo, s, promotionOrder(s.Promotion, chains[name]), src)); err != nil {
			return "", err
		}
	}
	return "routed", nil
}

// promotionOrder sorts one project's targets by the promotion order.
func promotionOrder(promotion []string, ts []settings.Target) []settings.Target {
	envs := make([]string, len(ts))
	byEnv := map[string]settings.Target{}
	for i, t := range ts {
		envs[i] = t.Env
		byEnv[t.Env] = t
	}
	var out []settings.Target
	for _, e := range review.PromotionOrder(promotion, envs) {
		out = append(out, byEnv[e])
	}
	return out
}

// mergeJob applies the first of chain on its environment's key and, when
// that applied completely, queues the rest; when it did not, the pull
// request is told which environments were left.
func (rt *router) mergeJob(ev event, repo *github.Repo, s *settings.Settings, chain []settings.Target, src *sources) queue.Job {
	t := chain[0]
	attrs := []slog.Attr{slog.String("repo", ev.fullName()), slog.Int("pr", ev.number), slog.String("target", t.Label())}
	return rt.pullJob("merge-apply", ev, repo, s, t, src, attrs, nil, func(ctx context.Context, d review.Deps, src *sources, s *settings.Settings, t settings.Target) (string, error) {
		out, err := rt.rules.ApplyMerged(ctx, d, reviewSettings(s, t), ev.mergeSHA, ev.merger)
		complete := err == nil && out != nil && out.Applied && (out.Result == nil || out.Result.Err() == nil)
		if rest := chain[1:]; len(rest) > 0 {
			if complete {
				if serr := rt.runner.Spawn(ctx, rt.mergeJob(ev, repo, s, rest, src)); serr != nil {
					return "", serr
				}
			} else {
				var left []string
				for _, r := range rest {
					left = append(left, r.Label())
				}
				if _, cerr := repo.CreateComment(context.WithoutCancel(ctx), ev.number, promotionStoppedReply(t.Label(), left)); cerr != nil && err == nil {
					err = cerr
				}
			}
		}
		return applyOutcome(out, err)
	})
}

// applyOutcome labels what a merge's apply did, for metrics: applied or
// refused, or its error.
func applyOutcome(out *review.ApplyOutcome, err error) (string, error) {
	switch {
	case err != nil:
		return "", err
	case out != nil && out.Applied:
		return "applied", nil
	}
	return "refused", nil
}
