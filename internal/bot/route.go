package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
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
func (b *Bot) routeJob(kind string, ev event, attrs []slog.Attr, f routeFunc) queue.Job {
	return b.keyedRouteJob(kind, prKey(ev), ev, attrs, f)
}

// keyedRouteJob is a routing job serialised on key.
func (b *Bot) keyedRouteJob(kind, key string, ev event, attrs []slog.Attr, f routeFunc) queue.Job {
	return queue.Job{Kind: kind, Key: key, Attrs: attrs, Run: func(ctx context.Context) (string, error) {
		repo, err := b.inst.repo(ctx, ev.installation, ev.owner, ev.repo)
		if err != nil {
			return "", err
		}
		defer func() { b.metrics.rateLimit(ev.installation, repo.RateLimitRemaining()) }()
		return f(ctx, ev, repo)
	}}
}

// targetKey serialises the jobs of one project/environment of a repository.
func targetKey(ev event, t settings.Target) string {
	return "env:" + strings.ToLower(ev.fullName()) + ":" + t.Project.Name + "/" + t.Env
}

// loadSettings reads .kyku/config.yaml from the DEFAULT branch (never a
// pull request's head, which must not loosen its own apply rules): at ref,
// a commit of it (a merge's rules are read at its first parent), or its
// tip when ref is "". Without the file, the defaults. Bad settings are a
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

// reviewSettings are the review rules of one target.
func reviewSettings(s *settings.Settings, t settings.Target) review.Settings {
	return review.Settings{
		Project:            t.Project.Name,
		Environment:        t.Env,
		RequireApproval:    s.RequireApproval,
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
func (b *Bot) deps(ev event, repo *github.Repo, src *sources, t settings.Target) review.Deps {
	return review.Deps{
		GitHub: repo,
		Open:   b.opener(ev, src, t.Project),
		Now:    b.now,
		Log:    b.log,
		// What is sensitive is the default branch's word (for a merge: as
		// it was before it, where the policies are read), never the pull
		// request's.
		Source: func(ctx context.Context, ref string) (*cfgConfig, error) {
			return src.config(ctx, t.Project, ref, policyRef(ev), t.Env)
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
		MergeRules: func(ctx context.Context, pr *github.PR, _ string) (string, error) {
			return mergeRules(ctx, repo, ev.rulesRef, pr)
		},
	}
}

// policyRef is where the policies that judge ev are read: the default
// branch; for a merge, the merge commit's first parent — the default
// branch as it was before the merge, so that a pull request never changes
// the policies that judge its own merge, and a policy that landed after
// the pull request was opened still judges it.
func policyRef(ev event) string {
	if ev.rulesRef != "" {
		return ev.rulesRef
	}
	return ev.defaultBranch
}

// ruleFiles keeps the files that hold review rules: the settings and the
// policies.
func ruleFiles(files []string) []string {
	var out []string
	for _, f := range files {
		if f == settings.Path || strings.HasPrefix(f, policy.Dir+"/") || path.Base(f) == tfinstall.LockFileName {
			out = append(out, f)
		}
	}
	return out
}

// mergeBase is where the rules that judge the merge of commit sha are
// read: its first parent, the default branch as it was before the merge.
func mergeBase(ctx context.Context, repo *github.Repo, sha string) (string, error) {
	parents, err := repo.Parents(ctx, sha)
	if err != nil {
		return "", err
	}
	if len(parents) == 0 || parents[0] == "" {
		return "", fmt.Errorf("merge commit %s has no parent", sha)
	}
	return parents[0], nil
}

// mergeRules says why the rules at ref would be pr's own ("" when they
// are not): a rule file pr changes that already holds, at ref, exactly
// what it holds at pr's head. A rebase merge puts a pull request's
// commits one after the other, so the first parent of its last commit
// holds the changes of the ones before.
func mergeRules(ctx context.Context, repo *github.Repo, ref string, pr *github.PR) (string, error) {
	if ref == "" {
		return "Kyku does not know the commit the merge was made on, so it cannot read the rules from before it.", nil
	}
	files, err := repo.ChangedFiles(ctx, pr.Number)
	if err != nil {
		return "", err
	}
	for _, f := range ruleFiles(files) {
		at, err := repo.FileContent(ctx, f, ref)
		goneAt := errors.Is(err, github.ErrNotFound)
		if err != nil && !goneAt {
			return "", err
		}
		head, err := repo.FileContent(ctx, f, pr.HeadSHA)
		goneHead := errors.Is(err, github.ErrNotFound)
		if err != nil && !goneHead {
			return "", err
		}
		if goneAt == goneHead && bytes.Equal(at, head) {
			return "The default branch before this merge (commit " + review.Code(shortSHA(ref)) + ", the merge commit's first parent) already holds this pull request's " +
				review.Code(f) + " (a rebase merge puts the pull request's earlier commits there), so the rules there are the pull request's own: " +
				"a pull request is never judged by the rules it brings. Merge such a pull request with a merge commit or a squash; " +
				"to finish this one, re-plan on the default branch, review the plan, then apply it.", nil
		}
	}
	return "", nil
}

func shortSHA(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// settingsProblem formats bad settings for a comment or check run.
func settingsProblem(err error) string {
	var ds diag.Diagnostics
	if errors.As(err, &ds) {
		return "Kyku cannot read `" + settings.Path + "` on the default branch:\n\n" + review.Fenced(ds.Error())
	}
	return "Kyku cannot read `" + settings.Path + "` on the default branch: " + review.Code(err.Error()) + "\n"
}

// isDiag reports whether err is bad user input (not an outage).
func isDiag(err error) bool {
	var ds diag.Diagnostics
	return errors.As(err, &ds)
}
