package bot

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/review"
)

type cfgConfig = config.Config

// routePlan plans every project/environment the pull request touches.
func (rt *router) routePlan(ctx context.Context, ev event, repo *github.Repo) (string, error) {
	s, err := loadSettings(ctx, repo, "")
	if isDiag(err) {
		_, cerr := repo.CreateCheck(ctx, ev.headSHA, settingsCheck(err))
		return "settings-error", cerr
	}
	if err != nil {
		return "", err
	}
	if ev.fork {
		// Anyone can open a pull request from a fork: it is never planned
		// on its own (with allow-fork-prs, only on a /kyku plan by someone
		// with plan-permission). Say so once, on the head commit.
		_, err := repo.CreateCheck(ctx, ev.headSHA, review.ForkCheck(reviewSettings(s, settings.Target{}), ev.number, ev.headRepo))
		return "fork", err
	}
	files, err := repo.ChangedFiles(ctx, ev.number)
	if err != nil {
		return "", err
	}
	return rt.routeTouched(ctx, ev, repo, s, "plan", ev.headSHA, files, newSources(repo, rt.maxSrc), func(t settings.Target, src *sources) queue.Job {
		return rt.planJob(ev, repo, s, t, src)
	})
}

// routeTouched runs command for every project/environment whose files the
// pull request changed: one job each on the queue, or, with execution:
// actions, a dispatch of the user's workflow at sha.
func (rt *router) routeTouched(ctx context.Context, ev event, repo *github.Repo, s *settings.Settings, command, sha string, files []string, src *sources, job func(settings.Target, *sources) queue.Job) (string, error) {
	targets := s.Touched(files)
	if command == "plan" && s.Execution == settings.InProcess {
		roots, err := rt.touchedRoots(ctx, ev, s, src, files)
		if err != nil {
			return "", err
		}
		for _, root := range roots {
			if err := rt.runner.Spawn(ctx, rt.rootPlanJob(ev, repo, s, root, src)); err != nil {
				return "", fmt.Errorf("queue plan of %s: %w", root, err)
			}
		}
		if len(targets) == 0 && len(roots) > 0 {
			return "routed", nil
		}
	}
	if len(targets) == 0 {
		return "untouched", nil
	}
	if s.Execution == settings.Actions {
		return rt.dispatch(ctx, ev, repo, s, targets, command, sha)
	}
	for _, t := range targets {
		if err := rt.runner.Spawn(ctx, job(t, src)); err != nil {
			return "", fmt.Errorf("queue %s of %s: %w", command, t.Label(), err)
		}
	}
	return "routed", nil
}

// CheckName is the check run of one target's plan.
func CheckName(t settings.Target) string { return "kyku plan (" + t.Label() + ")" }

// planJob plans one target: a check run in progress, the head's config read
// through the API, review.Plan (saved plan and sticky comment), then the
// check run completed with the rendered summary.
func (rt *router) planJob(ev event, repo *github.Repo, s *settings.Settings, t settings.Target, src *sources) queue.Job {
	attrs := []slog.Attr{slog.String("repo", ev.fullName()), slog.Int("pr", ev.number), slog.String("target", t.Label())}
	return rt.pullJob("plan", ev, repo, s, t, src, attrs, nil, func(ctx context.Context, d review.Deps, src *sources, s *settings.Settings, t settings.Target) (string, error) {
		name := CheckName(t)
		id, err := rt.openCheckRun(ctx, repo, name, ev.headSHA)
		if err != nil {
			return "", err
		}
		finish := func(check github.CheckRun) error {
			if rt.runner.Interrupted(ctx) {
				// Stopped by the bot (shutdown, a lease lost): the
				// replica that takes the job over plans it again on
				// this check run.
				return ctx.Err()
			}
			// The check must not stay "in progress" when the job is cancelled.
			return repo.UpdateCheck(context.WithoutCancel(ctx), id, check)
		}
		// Everything the repository controls (file and branch names,
		// error text quoting them) is fenced or code-spanned.
		cfg, err := src.config(ctx, t.Project, ev.headSHA, ev.defaultBranch, t.Env)
		if err != nil {
			if !isDiag(err) {
				_ = finish(review.PlanFailedCheck(name, review.SourceUnreadable, err.Error(), ""))
				return "", err
			}
			return "config-error", finish(review.PlanFailedCheck(name, review.ConfigInvalid, err.Error(), ""))
		}
		// Error text may quote a sensitive value: what the check run
		// (read by whoever reads the repository) and the log show is
		// scrubbed, as the plan comment is (worked out on failure only).
		trusted, err := d.Trusted(ctx)
		if err != nil {
			return "untrusted", finish(review.PlanFailedCheck(name, review.NoTrustedConfig, progress.SecretsOf(cfg, nil).Scrub(err.Error()), ev.defaultBranch))
		}
		out, err := rt.rules.Plan(ctx, d, review.PlanRequest{
			Settings: reviewSettings(s, t), Number: ev.number, HeadSHA: ev.headSHA, Config: cfg, Trusted: trusted,
		})
		if err != nil {
			err = progress.SecretsOf(cfg, nil).Add(progress.SecretsOf(trusted, nil)).Error(err)
			_ = finish(review.PlanFailedCheck(name, review.PlanFailed, err.Error(), ""))
			return "", err
		}
		if err := finish(out.PlanCheck(name)); err != nil {
			return "", err
		}
		if err := rt.policyCheck(ctx, repo, reviewSettings(s, t), out, ev.headSHA); err != nil {
			return "", err
		}
		return "planned", nil
	})
}

// policyCheck creates the check run "kyku policy (<target>)" of a plan on
// head (none when the repository has no policies).
func (rt *router) policyCheck(ctx context.Context, repo *github.Repo, s review.Settings, out *review.PlanOutcome, head string) error {
	check, ok := out.PolicyCheck(s, render.Meta{CommitSHA: head})
	if !ok {
		return nil
	}
	_, err := repo.CreateCheck(ctx, head, check)
	return err
}

// openCheckRun opens the check run name on sha, in progress: the one this
// step opened before its job was taken over, when there is one (a job
// planned again shows one check run, not a stale one beside a new one).
func (rt *router) openCheckRun(ctx context.Context, repo *github.Repo, name, sha string) (int64, error) {
	if id := rt.runner.Progress(ctx, "").CheckRun; id != 0 {
		err := repo.UpdateCheck(ctx, id, review.PlanningAgainCheck(name))
		if err == nil {
			return id, nil
		}
		rt.log.Warn("check run of a job taken over not reused", "check_run", id, "error", err.Error())
	}
	id, err := repo.CreateCheck(ctx, sha, review.PlanningCheck(name))
	if err != nil {
		return 0, err
	}
	rt.runner.Record(ctx, "", func(st *jobs.Step) { st.CheckRun = id })
	return id, nil
}
