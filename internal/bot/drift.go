package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/bot/schedule"
	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/review"
)

// DriftEventType is the repository_dispatch event_type that asks the bot
// for a drift check of one repository now (client_payload may narrow it
// with "project" and "environment").
const DriftEventType = "kyku-drift"

// driftFilter narrows an on-demand drift check.
type driftFilter struct {
	project, env string
	onDemand     bool // a repository_dispatch: runs even when drift.enabled is false
}

func (f driftFilter) keeps(t settings.Target) bool {
	return (f.project == "" || f.project == t.Project.Name) && (f.env == "" || f.env == t.Env)
}

// driftCheck is the routing job of a scheduled drift check of r.
func (rt *router) driftCheck(r schedule.Repo) queue.Job {
	ev := event{installation: r.Installation, owner: r.Owner, repo: r.Name, defaultBranch: r.DefaultBranch, repoID: r.ID, created: r.Created}
	return rt.driftRouteJob("drift-schedule", ev, driftFilter{})
}

// driftRouteJob reads one repository's settings and queues its drift jobs;
// drift routes of a repository are serialised.
func (rt *router) driftRouteJob(kind string, ev event, f driftFilter) queue.Job {
	attrs := []slog.Attr{slogString("repo", ev.fullName()), slog.Int64("installation", ev.installation)}
	return rt.keyedRouteJob(kind, "drift:"+strings.ToLower(ev.fullName()), ev, attrs,
		func(ctx context.Context, ev event, repo *github.Repo) (string, error) {
			return rt.routeDrift(ctx, ev, repo, f)
		})
}

// routeDrift queues a drift job for every project and environment of the
// repository (those the filter keeps), or hands them to the user's workflow
// (command refresh) under execution: actions. Repositories without
// settings and without kyku.yaml are not Kyku's: nothing is done.
func (rt *router) routeDrift(ctx context.Context, ev event, repo *github.Repo, f driftFilter) (string, error) {
	s, err := loadSettings(ctx, repo, "")
	if isDiag(err) {
		// Not worth an issue on every round: plans report it on PRs.
		rt.log.Warn("drift skipped: invalid settings", "repo", ev.fullName(), "error", err.Error())
		return "settings-error", nil
	}
	if err != nil {
		return "", err
	}
	if !s.FromFile {
		if _, err := repo.FileContent(ctx, settings.DefaultConfig, ""); errors.Is(err, github.ErrNotFound) {
			return "not-kyku", nil
		} else if err != nil {
			return "", err
		}
	}
	if !s.Drift.Enabled && !f.onDemand {
		return "disabled", nil
	}
	var targets []settings.Target
	for _, t := range s.Targets() {
		if f.keeps(t) {
			targets = append(targets, t)
		}
	}
	src := newSources(repo, rt.maxSrc)
	var roots []string
	if s.Execution == settings.InProcess {
		if roots, err = rt.allRoots(ctx, ev, s, src, f); err != nil {
			return "", err
		}
		if targets, err = withConfig(ctx, s, src, ev.defaultBranch, targets); err != nil {
			return "", err
		}
	}
	if len(targets) == 0 && len(roots) == 0 {
		return "untouched", nil
	}
	if s.Execution == settings.Actions {
		return rt.dispatch(ctx, ev, repo, s, targets, "refresh", ev.defaultBranch)
	}
	queued := 0
	for _, root := range roots {
		key := targetKey(ev, rootTarget(root))
		if _, dup := rt.driftPending.LoadOrStore(key, true); dup {
			continue
		}
		if err := rt.runner.Spawn(ctx, rt.rootDriftJob(ev, repo, s, root, src)); err != nil {
			rt.driftPending.Delete(key)
			return "", fmt.Errorf("queue drift check of %s: %w", root, err)
		}
		queued++
	}
	for _, t := range targets {
		key := targetKey(ev, t)
		if _, dup := rt.driftPending.LoadOrStore(key, true); dup {
			continue // the previous check has not run yet: it will read the same branch
		}
		if err := rt.runner.Spawn(ctx, rt.driftJob(ev, repo, s, t, src)); err != nil {
			rt.driftPending.Delete(key)
			return "", fmt.Errorf("queue drift check of %s: %w", t.Label(), err)
		}
		queued++
	}
	if queued == 0 {
		return "already-queued", nil
	}
	return "routed", nil
}

// driftJob checks one project/environment: the default branch's config,
// then review.Drift (one issue per environment, updated in place, closed
// when drift is gone). Outcomes: drift, clean, resolved, config-error.
func (rt *router) driftJob(ev event, repo *github.Repo, s *settings.Settings, t settings.Target, src *sources) queue.Job {
	key := targetKey(ev, t)
	return queue.Job{
		Kind:  "drift",
		Key:   key,
		Attrs: []slog.Attr{slog.String("repo", ev.fullName()), slog.String("target", t.Label())},
		Run: func(ctx context.Context) (string, error) {
			rt.driftPending.Delete(key) // from now on, a new round reads the branch afresh
			cfg, err := src.config(ctx, t.Project, ev.defaultBranch, "", t.Env)
			if err != nil {
				if isDiag(err) {
					return "config-error", fmt.Errorf("drift check of %s: %w", t.Label(), err)
				}
				return "", err
			}
			// A drift check has the state to itself: it must not see a
			// pull request's apply halfway.
			d := rt.deps(ev, repo, src, t)
			d.Open = rt.inTurn(ev, t, true, rt.opener(ev, src, t.Project))
			out, err := rt.rules.Drift(ctx, d, review.DriftRequest{
				Settings: reviewSettings(s, t), Config: cfg, WriteState: s.Drift.WriteState,
			})
			return driftResult(out, err)
		},
	}
}

// driftResult is the outcome a drift round records for one project: what
// review.Drift found, or its error.
func driftResult(out *review.DriftOutcome, err error) (string, error) {
	switch {
	case err != nil:
		return "", err
	case out.Drift:
		return "drift", nil
	case out.Closed:
		return "resolved", nil
	}
	return "clean", nil
}
