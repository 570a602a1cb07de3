package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/policy"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/tfinstall"
)

// routeFunc turns an event into work for its projects and environments:
// it reads the settings from the default branch and spawns one job per
// target (or dispatches the user's workflow).
type routeFunc func(ctx context.Context, ev event, repo *github.Repo) (string, error)

// routeJob is the first job of every event, serialised per pull request.
func (rt *router) routeJob(kind string, ev event, attrs []slog.Attr, f routeFunc) queue.Job {
	return rt.keyedRouteJob(kind, prKey(ev), ev, attrs, f)
}

// keyedRouteJob is a routing job serialised on key.
func (rt *router) keyedRouteJob(kind, key string, ev event, attrs []slog.Attr, f routeFunc) queue.Job {
	return queue.Job{Kind: kind, Key: key, Attrs: attrs, Run: func(ctx context.Context) (string, error) {
		repo, err := rt.inst.repo(ctx, ev.installation, ev.owner, ev.repo)
		if err != nil {
			return "", err
		}
		defer func() { rt.metrics.rateLimit(ev.installation, repo.RateLimitRemaining()) }()
		return f(ctx, ev, repo)
	}}
}

// pullKey is the queue key of a pull request's job on t: one per pull
// request (concurrent applies, the default), so that those of different
// pull requests run at once — their applies wait for the objects they
// touch (leases); on a state without leases, the job is requeued on t's
// key (pullJob) — or, with concurrent-applies: false, t's.
func pullKey(ev event, s *settings.Settings, t settings.Target) string {
	if s.ConcurrentApplies && ev.number > 0 {
		return targetKey(ev, t) + "#pr-" + strconv.Itoa(ev.number)
	}
	return targetKey(ev, t)
}

// targetKey serialises the jobs of one project/environment of a repository.
func targetKey(ev event, t settings.Target) string {
	return "env:" + strings.ToLower(ev.fullName()) + ":" + t.Project.Name + "/" + t.Env
}

// loadSettings reads .kyku/config.yaml from the DEFAULT branch (never a
// pull request's head, which must not loosen its own apply rules): at ref,
// a commit of it (a merge's rules: see setMergeRefs), or its tip when ref
// is "". Without the file, the defaults. Bad settings are a
// diag.Diagnostics.
func loadSettings(ctx context.Context, repo *github.Repo, ref string) (*settings.Settings, error) {
	data, err := repo.FileContent(ctx, settings.Path, ref)
	if errors.Is(err, github.ErrNotFound) {
		return settings.Defaults(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read settings: %w", err)
	}
	return settings.Parse(settings.Path, data)
}

// rulesFrom is where the bot's review rules are written, as replies name it.
const rulesFrom = "`" + settings.Path + "` on the default branch"

// reviewSettings are the review rules of one target.
func reviewSettings(s *settings.Settings, t settings.Target) review.Settings {
	return review.Settings{
		Project:            t.Project.Name,
		Environment:        t.Env,
		RequireApproval:    s.RequireApproval,
		Apply:              s.Apply,
		RulesFrom:          rulesFrom,
		RequiredApprovals:  s.RequiredApprovals,
		ApproverPermission: s.ApproverPermission,
		ApplyPermission:    s.ApplyPermission,
		PlanPermission:     s.PlanPermission,
		CommentMode:        s.Comment,
		AllowForkPRs:       s.AllowForkPRs,
		PolicyOwners:       s.PolicyOwners,
		Promotion:          s.Promotion,
	}
}

// deps are what the review rules need for one target: the installation's
// repository, source read through the API (the head's config) and the
// default branch's config (trusted: it opens the backend).
func (rt *router) deps(ev event, repo *github.Repo, src *sources, t settings.Target) review.Deps {
	return review.Deps{
		GitHub: repo,
		Open:   rt.inTurn(ev, t, false, rt.opener(ev, src, t.Project)),
		Now:    rt.now,
		Log:    rt.log,
		// What is sensitive is the default branch's word (for a merge: as
		// it was before it, see sensitiveRefs), never the pull request's.
		Source: func(ctx context.Context, ref string) (*cfgConfig, error) {
			return src.configTrusting(ctx, t.Project, ref, sensitiveRefs(ev), t.Env)
		},
		Trusted: func(ctx context.Context) (*cfgConfig, error) {
			return src.config(ctx, t.Project, ev.defaultBranch, "", t.Env)
		},
		Policies: func(ctx context.Context) (*policy.Set, error) {
			return src.policies(ctx, policyRef(ev))
		},
		RuleChanges: func(ctx context.Context, number int) ([]string, error) {
			files, err := repo.ChangedFiles(ctx, number)
			if err != nil {
				return nil, err
			}
			return ruleFiles(files), nil
		},
		MergeRules: mergeRules(ev),
	}
}

// policyRef is where the policies that judge ev are read: the default
// branch; for a merge, ev.rulesRef — the default branch's policies as they
// were before the merge (see mergerules.go), so that a pull request never
// changes the policies that judge its own merge, and a policy that landed
// after the pull request was opened still judges it.
func policyRef(ev event) string {
	if ev.rulesRef != "" {
		return ev.rulesRef
	}
	return ev.defaultBranch
}

// sensitiveRefs are where what is sensitive is decided for ev: the
// default branch; for a merge, the merge commit's first parent (the
// default branch before the merge, for a merge commit). A squash or rebase
// merge's first parent may be the pull request's previous commit (the
// commit cannot tell the two apart), so for one what the payload's
// base.sha (a commit of the default branch) and the merge commit declare
// counts too: a variable is sensitive when any of them says so
// (config.TrustAll), and a pull request cannot unmark one in a commit of
// its own.
func sensitiveRefs(ev event) []string {
	switch {
	case ev.parentRef == "":
		return []string{ev.defaultBranch}
	case !ev.linear:
		return []string{ev.parentRef}
	}
	refs := []string{ev.parentRef, ev.mergeSHA}
	if ev.baseSHA != "" {
		refs = append(refs, ev.baseSHA)
	}
	return refs
}

// ruleFiles keeps the files that hold review rules: the settings, the
// policies and the providers' lock files.
func ruleFiles(files []string) []string {
	var out []string
	for _, f := range files {
		if isRuleFile(f) || isLockFile(f) {
			out = append(out, f)
		}
	}
	return out
}

// isRuleFile reports whether f holds review rules read where the merge
// rules are (mergeRules): the settings or a policy.
func isRuleFile(f string) bool { return f == settings.Path || strings.HasPrefix(f, policy.Dir+"/") }

// isLockFile reports whether f is a providers' lock file.
func isLockFile(f string) bool { return tfinstall.IsLockFile(f) }

// isDiag reports whether err is bad user input (not an outage).
func isDiag(err error) bool {
	var ds diag.Diagnostics
	return errors.As(err, &ds)
}
