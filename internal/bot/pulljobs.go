package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/review"
)

// pullRun is the work of a pull request's job on one target t, given the
// review rules' deps for it, the sources it reads and the settings s that
// judge it (read again when the job waited: see pullJob).
type pullRun func(ctx context.Context, d review.Deps, src *sources, s *settings.Settings, t settings.Target) (string, error)

// pullJob is a pull request's job on target t (a plan, a /kyku command, a
// merge's apply), queued on its own key (pullKey) beside other pull
// requests'. Before anything a person sees, it opens t's state: one
// without leases (or one it cannot open) ends the run with a
// queue.Requeue behind t's key, releasing the worker; the job then runs
// again from the start (the pull request, its approvals, the default
// branch's config and the review settings read as they are then) on t's
// key, one at a time. A job queued on t's key from the start (with
// concurrent-applies: false) reads the settings again too: both may have
// waited behind other jobs, and the settings judge a job as it runs. On a
// state with leases, the rules use the workspace it opened. When may (nil:
// always) says no (a commenter without the permission), nothing is opened
// first: the rules refuse without opening anything. When may could not
// decide (GitHub failed), the job ends with its error: nothing runs.
func (rt *router) pullJob(kind string, ev event, repo *github.Repo, s *settings.Settings, t settings.Target, src *sources, attrs []slog.Attr, may mayFunc, run pullRun) queue.Job {
	key := pullKey(ev, s, t)
	return queue.Job{Kind: kind, Key: key, Attrs: attrs, Run: func(ctx context.Context) (string, error) {
		jobSrc, s, t := src, s, t
		if queue.Requeued(ctx) {
			jobSrc = newSources(repo, rt.maxSrc) // read again: the job is judged as it runs now
		}
		if queue.Requeued(ctx) || key == targetKey(ev, t) {
			var outcome string
			var err error
			if s, t, outcome, err = rt.settingsNow(ctx, ev, repo, t); s == nil {
				return outcome, err
			}
		}
		opens := key != targetKey(ev, t) && !queue.Requeued(ctx)
		if opens && may != nil {
			var err error
			if opens, err = may(ctx); err != nil {
				return "", err
			}
		}
		var first *firstOpen
		if opens {
			var err error
			first, err = rt.openFirst(ctx, ev, src, t)
			if err != nil && ctx.Err() != nil {
				return "", err
			}
			if err != nil || !first.ws.Engine.Leased() {
				first.close()
				return "", &queue.Requeue{Key: targetKey(ev, t), Reason: requeueReason(err)}
			}
			defer first.close()
		}
		d := rt.deps(ev, repo, jobSrc, t)
		if first != nil {
			d.Open = rt.inTurn(ev, t, false, first.opener(rt.opener(ev, jobSrc, t.Project)))
			d.Trusted = func(context.Context) (*config.Config, error) { return first.cfg, nil }
		}
		return run(ctx, d, jobSrc, s, t)
	}}
}

// settingsNow reads the settings that judge ev again, where the route read
// them (the default branch's tip; for a merge, its rules' commit), and t
// in them. When they are bad or no longer have t, s is nil and the job
// ends with outcome and err: bad settings are said on the pull request,
// as the route says them.
func (rt *router) settingsNow(ctx context.Context, ev event, repo *github.Repo, t settings.Target) (s *settings.Settings, now settings.Target, outcome string, err error) {
	s, outcome, err = settingsAgain(ctx, ev, repo)
	if s == nil {
		return nil, t, outcome, err
	}
	for _, nt := range s.Targets() {
		if nt.Project.Name == t.Project.Name && nt.Env == t.Env {
			return s, nt, "", nil
		}
	}
	rt.log.InfoContext(ctx, "job dropped: its target is no longer in the settings", "repo", ev.fullName(), "pr", ev.number, "target", t.Label())
	return nil, t, "no-target", nil
}

// settingsAgain reads the settings that judge ev again, where the route
// read them, for a job that may have waited in its queue (a Terraform
// root's, whose target is its directory, not one of the settings'). When
// they are bad, s is nil and the job ends with outcome and err: bad
// settings are said on the pull request, as the route says them.
func settingsAgain(ctx context.Context, ev event, repo *github.Repo) (s *settings.Settings, outcome string, err error) {
	s, err = loadSettings(ctx, repo, ev.rulesRef)
	if isDiag(err) {
		if _, cerr := repo.CreateComment(ctx, ev.number, settingsProblem(err)); cerr != nil {
			return nil, "", cerr
		}
		return nil, "settings-error", nil
	}
	if err != nil {
		return nil, "", err
	}
	return s, "", nil
}

// rootSettingsNow is settingsAgain for a Terraform root's job, which
// waited behind the root's other jobs: s is nil, and the job ends with
// outcome and err, also when terraform-roots is no longer on.
func (rt *router) rootSettingsNow(ctx context.Context, ev event, repo *github.Repo, root string) (s *settings.Settings, outcome string, err error) {
	s, outcome, err = settingsAgain(ctx, ev, repo)
	if s == nil {
		return nil, outcome, err
	}
	if !s.TerraformRoots {
		rt.log.InfoContext(ctx, "job dropped: terraform-roots is no longer on in the settings", "repo", ev.fullName(), "pr", ev.number, "root", root)
		return nil, "no-target", nil
	}
	return s, "", nil
}

// mayFunc reports whether a job's requester may run it at all; an error
// when that could not be decided.
type mayFunc func(ctx context.Context) (bool, error)

// requeueReason is what the log says of a job requeued after openFirst
// (never the error's text, which may quote a secret).
func requeueReason(err error) string {
	if err != nil {
		return "its state could not be opened beside other pull requests' jobs: it runs in turn, where the error is reported"
	}
	return "its state has no leases: its jobs run one at a time"
}

// firstOpen is the workspace a pull request's job opened, from the
// default branch's config, to learn whether its state is leased. The
// rules' first open of that config takes it; close closes it unless taken.
// Concurrency: safe for concurrent use.
type firstOpen struct {
	cfg *config.Config
	env string

	mu sync.Mutex
	ws *review.Workspace // nil once taken or closed
}

// openFirst opens t's workspace as the rules would on the default branch.
func (rt *router) openFirst(ctx context.Context, ev event, src *sources, t settings.Target) (*firstOpen, error) {
	cfg, err := src.config(ctx, t.Project, ev.defaultBranch, "", t.Env)
	if err != nil {
		return nil, fmt.Errorf("read the default branch's config of %s: %w", t.Label(), err)
	}
	ws, err := rt.opener(ev, src, t.Project)(ctx, cfg, t.Env)
	if err != nil {
		return nil, fmt.Errorf("open %s's workspace: %w", t.Label(), err)
	}
	f := &firstOpen{cfg: cfg, env: t.Env, ws: ws}
	if ws == nil || ws.Engine == nil {
		f.close()
		return nil, errors.New("open " + t.Label() + "'s workspace: no engine")
	}
	return f, nil
}

// opener hands the workspace over to the first open of f's config and
// environment; every other open goes to next.
func (f *firstOpen) opener(next review.Opener) review.Opener {
	return func(ctx context.Context, cfg *config.Config, env string) (*review.Workspace, error) {
		f.mu.Lock()
		ws := f.ws
		if cfg != f.cfg || env != f.env {
			ws = nil
		}
		if ws != nil {
			f.ws = nil
		}
		f.mu.Unlock()
		if ws != nil {
			return ws, nil
		}
		return next(ctx, cfg, env)
	}
}

// close closes the workspace unless it was handed over (nil f: nothing).
func (f *firstOpen) close() {
	if f == nil {
		return
	}
	f.mu.Lock()
	ws := f.ws
	f.ws = nil
	f.mu.Unlock()
	if ws != nil && ws.Close != nil {
		_ = ws.Close()
	}
}
