package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/kyku/action/internal/command"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/review"
)

// planActions are the pull_request actions that plan.
var planActions = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"opened": true, "synchronize": true, "reopened": true, "ready_for_review": true}
})

// pullRequest plans the pull request's head (or applies its saved plan with
// command: apply).
func (r *run) pullRequest(ctx context.Context, cmd Command) int {
	pr := r.ev.PullRequest
	if pr == nil {
		return r.fail(errors.New("the pull_request event has no pull_request"))
	}
	if cmd == Apply {
		out, err := review.Apply(ctx, r.deps, review.ApplyRequest{Settings: r.settings(), Number: pr.Number, Commenter: r.ghctx.Actor})
		return r.applied(out, err, false)
	}
	if cmd == Auto && !planActions()[r.ev.Action] {
		return r.skip(pullRequestActionSkip(pr.Number, r.ev.Action))
	}
	return r.planPullRequest(ctx, pr.Number, pr.Head.SHA)
}

// planPullRequest plans pull request number at head: kyku.yaml and each
// Terraform root it touches (projects.go).
func (r *run) planPullRequest(ctx context.Context, number int, head string) int {
	roots, err := r.touchedRoots(ctx, number, head)
	if err != nil {
		return r.fail(err)
	}
	if len(roots) == 0 {
		if r.noYAML(ctx, head, r.defaultBranch()) {
			return r.skip(noProjectSkip(number, r.src.path))
		}
		return r.planYAML(ctx, number, head)
	}
	return r.eachTarget(r.withYAML(ctx, roots, head, r.defaultBranch()), func(t target) int {
		if t.yaml {
			return r.planYAML(ctx, number, head)
		}
		return r.planRoot(ctx, number, head, t.root)
	})
}

// planYAML plans pull request number at head: its kyku.yaml at head, the
// backend from the default branch's.
func (r *run) planYAML(ctx context.Context, number int, head string) int {
	cfg, err := r.configAt(ctx, head)
	if err != nil {
		return r.fail(err)
	}
	trusted, err := r.deps.Trusted(ctx)
	if errors.Is(err, review.ErrNoTrustedConfig) {
		// Planning only: an apply never opens a pull request's own backend.
		r.a.Warningf("the default branch %s has no configuration at %s yet: planning with the pull request's backend settings (planning only; merging applies it)", r.defaultBranch(), r.src.path)
		trusted, err = nil, nil
	}
	if err != nil {
		return r.fail(err)
	}
	out, err := review.Plan(ctx, r.deps, review.PlanRequest{
		Settings: r.settings(), Number: number, HeadSHA: head, Config: cfg, Trusted: trusted,
	})
	if err != nil {
		return r.fail(err)
	}
	r.reportPolicy(ctx, out, head)
	return r.planned(out)
}

// dispatched runs a workflow_dispatch for pull request in.PullRequest (the
// bot's execution: actions): a plan the bot sent on its own (a push to the
// pull request) plans it as the pull_request event would; any other
// command is the /kyku comment of whoever asked, judged by the same rules
// (plan-permission, apply-permission, approvals, the reviewed plan). Who
// asked is the dispatch's sender — or, when the sender is the account the
// workflow names in input dispatcher (the bot App), its input
// requested-by. A dispatch by any other bot is refused: Kyku would not
// know who asked (a workflow's GITHUB_TOKEN can dispatch too).
func (r *run) dispatched(ctx context.Context, cmd Command) int {
	n := r.in.PullRequest
	sender := r.ev.Sender.Login
	if sender == "" {
		sender = r.ghctx.Actor
	}
	fromDispatcher := r.in.Dispatcher != "" && strings.EqualFold(sender, r.in.Dispatcher)
	if !fromDispatcher && (strings.HasSuffix(sender, "[bot]") || strings.EqualFold(r.ev.Sender.Type, "Bot")) {
		return r.fail(fmt.Errorf("pull request #%d's %s was dispatched by %s, which input dispatcher does not name: Kyku does not know who asked for it (set dispatcher to the bot App's account, e.g. kyku[bot])", n, cmd, sender))
	}
	requester := sender
	if fromDispatcher {
		requester = r.in.RequestedBy
	} else if r.in.RequestedBy != "" && !strings.EqualFold(r.in.RequestedBy, sender) {
		r.a.Warningf("input requested-by %s ignored: the dispatch was sent by %s, who is the one asking", r.in.RequestedBy, sender)
	}
	if requester == "" {
		if cmd != Plan && cmd != Auto {
			return r.fail(fmt.Errorf("pull request #%d's %s was dispatched by %s without requested-by: Kyku does not know who asked for it", n, cmd, sender))
		}
		pr, err := r.repo.PullRequest(ctx, n)
		if err != nil {
			return r.fail(err)
		}
		if pr.IsFork {
			return r.skip(dispatchedForkSkip(n, pr.HeadRepoFullName))
		}
		if pr.State != "open" {
			return r.skip(dispatchedStateSkip(n, pr.State))
		}
		return r.planPullRequest(ctx, n, pr.HeadSHA)
	}
	name := "plan"
	if cmd == Apply {
		name = "apply"
	}
	cev := review.CommentEvent{Action: "created", Number: n, IsPR: true, Body: "/kyku " + name, Author: requester}
	if cmd == Apply {
		cev.SeenHead = r.in.HeadSHA // the head the bot pinned when the comment arrived
		if cev.SeenHead == "" {
			// A dispatch without head-sha (a person's, or a workflow that
			// does not forward the bot's sha): the head as the run starts,
			// as for a comment, so that a push during the run is not applied.
			seen, err := r.seenHead(ctx, cev, nil)
			if err != nil {
				return r.fail(err)
			}
			cev.SeenHead = seen
		}
	}
	out, err := review.Comment(ctx, r.deps, r.settings(), cev)
	if err != nil {
		return r.fail(err)
	}
	switch {
	case out.Ignored != "":
		return r.skip(ignoredSkip("dispatched command", out.Ignored))
	case out.Apply != nil:
		return r.applied(out.Apply, nil, false)
	case out.Plan != nil:
		if pr, err := r.repo.PullRequest(ctx, n); err == nil {
			r.reportPolicy(ctx, out.Plan, pr.HeadSHA)
		}
		return r.planned(out.Plan)
	}
	r.out.commentURL = out.Replied
	r.summary = summaryReplied(out.Command, out.Replied)
	return ExitOK
}

func (r *run) defaultBranch() string {
	if b := r.ev.Repository.DefaultBranch; b != "" {
		return b
	}
	return "main"
}

// push applies the merged pull request's saved plan when the default branch
// moves, and reports the merges before it whose runs were cancelled
// (cancelled.go).
func (r *run) push(ctx context.Context, cmd Command) int {
	branch, isBranch := strings.CutPrefix(r.ev.Ref, "refs/heads/")
	if cmd == Plan {
		return r.planCheckout(ctx)
	}
	if !isBranch || branch != r.defaultBranch() || r.ev.Deleted {
		return r.skip(pushSkip(r.ev.Ref, r.defaultBranch()))
	}
	if refused := review.ApplyModeRefusal(r.settings(), review.TriggerMerge); refused != nil {
		return r.skip(applyModeSkip(nothingToDo, refused))
	}
	var pr *github.PR
	if r.in.TerraformRoots {
		var err error
		if pr, err = r.mergedPR(ctx); err != nil {
			return r.fail(err)
		}
	}
	var roots []string
	var err error
	if pr != nil {
		// The roots as the merge commit has them: what reaches the
		// default branch (a root it removed or changed since the pull
		// request branched is judged as merged), as the bot finds them.
		if roots, err = r.touchedRoots(ctx, pr.Number, r.ev.After); err != nil {
			return r.fail(err)
		}
	}
	if len(roots) == 0 {
		if pr != nil && r.noCheckoutYAML() {
			return r.skip(noProjectSkip(pr.Number, r.src.path))
		}
		out, err := review.ApplyMerged(ctx, r.deps, r.settings(), r.ev.After, r.ev.Sender.Login)
		return r.reportCancelled(ctx, r.applied(out, err, true))
	}
	targets := r.withYAML(ctx, roots) // the roots; kyku.yaml as the merge reads it, from the checkout
	if !r.noCheckoutYAML() {
		targets = append([]target{{yaml: true}}, targets...)
	}
	code := r.eachTarget(targets, func(t target) int {
		if t.yaml {
			out, err := review.ApplyMerged(ctx, r.deps, r.settings(), r.ev.After, r.ev.Sender.Login)
			return r.applied(out, err, true)
		}
		return r.applyMergedRoot(ctx, pr, t.root)
	})
	return r.reportCancelled(ctx, code)
}

// comment answers a `/kyku` comment.
func (r *run) comment(ctx context.Context) int {
	ev := r.ev
	if ev.Issue == nil || ev.Comment == nil {
		return r.fail(errors.New("the issue_comment event has no issue or comment"))
	}
	isPR := len(ev.Issue.PullRequest) > 0 && string(ev.Issue.PullRequest) != "null"
	cev := review.CommentEvent{
		Action: ev.Action, Number: ev.Issue.Number, IsPR: isPR, Body: ev.Comment.Body,
		Author: ev.Comment.User.Login, AuthorIsBot: ev.Comment.User.Type == "Bot", CommentID: ev.Comment.ID,
		CommentedAt: ev.Comment.CreatedAt,
	}
	pr, roots, err := r.commentRoots(ctx, cev)
	if err != nil {
		return r.fail(err)
	}
	if cev.SeenHead, err = r.seenHead(ctx, cev, pr); err != nil {
		return r.fail(err)
	}
	if len(roots) == 0 {
		return r.commented(ctx, r.deps, r.settings(), cev)
	}
	return r.eachTarget(r.withYAML(ctx, roots, pr.HeadSHA, r.defaultBranch()), func(t target) int {
		if t.yaml {
			return r.commented(ctx, r.deps, r.settings(), cev)
		}
		return r.commented(ctx, r.rootDeps(r.commentRefs(cev, pr, t.root)), r.rootSettings(t.root), cev)
	})
}

// seenHead is, for a /kyku apply, the pull request's head as the run
// starts (pr, when it was read already): the event does not carry it, and
// this is the earliest the Action can read it. Every project the comment
// applies is then of that commit, or refused (review.SeenHeadRefusal),
// however long the projects before it took.
func (r *run) seenHead(ctx context.Context, cev review.CommentEvent, pr *github.PR) (string, error) {
	cmd, ok := command.Parse(cev.Body)
	if !ok || cmd.Name != command.Apply || cmd.Err != "" || !cev.IsPR || cev.Action != "created" || cev.AuthorIsBot {
		return "", nil
	}
	if pr == nil {
		var err error
		if pr, err = r.repo.PullRequest(ctx, cev.Number); err != nil {
			return "", fmt.Errorf("read the head of #%d as the run started: %w", cev.Number, err)
		}
	}
	return pr.HeadSHA, nil
}

// commented answers a `/kyku` comment for one project.
func (r *run) commented(ctx context.Context, deps review.Deps, s review.Settings, cev review.CommentEvent) int {
	ev := r.ev
	out, err := review.Comment(ctx, deps, s, cev)
	if err != nil {
		return r.fail(err)
	}
	switch {
	case out.Ignored != "":
		return r.skip(ignoredSkip("comment", out.Ignored))
	case out.Refused != nil && out.Refused.Requirement == review.RequireApplyMode:
		r.out.commentURL = out.Replied
		return r.skip(applyModeSkip(didNotApply, out.Refused))
	case out.Apply != nil:
		return r.applied(out.Apply, nil, false)
	case out.Plan != nil:
		if pr, err := r.repo.PullRequest(ctx, ev.Issue.Number); err == nil {
			r.reportPolicy(ctx, out.Plan, pr.HeadSHA)
		}
		return r.planned(out.Plan)
	}
	r.out.commentURL = out.Replied
	r.summary = summaryReplied(out.Command, out.Replied)
	return ExitOK
}

// drift refreshes the environment and keeps the drift issue, with the
// default branch's config (the checkout, or through the API on a
// pull_request event).
func (r *run) drift(ctx context.Context) int {
	roots, err := r.allRoots(ctx, r.baseRef())
	if err != nil {
		return r.fail(err)
	}
	if len(roots) == 0 {
		return r.driftYAML(ctx)
	}
	return r.eachTarget(r.withYAML(ctx, roots, r.baseRef()), func(t target) int {
		if t.yaml {
			return r.driftYAML(ctx)
		}
		return r.driftRoot(ctx, t.root)
	})
}

// driftYAML checks kyku.yaml's environment for drift.
func (r *run) driftYAML(ctx context.Context) int {
	cfg, err := r.deps.Trusted(ctx)
	if err != nil {
		return r.fail(err)
	}
	return r.driftWith(ctx, r.deps, r.settings(), cfg)
}

// driftWith checks one project for drift and reports it.
func (r *run) driftWith(ctx context.Context, deps review.Deps, s review.Settings, cfg *config.Config) int {
	out, err := review.Drift(ctx, deps, review.DriftRequest{Settings: s, Config: cfg, WriteState: r.in.RefreshWritesState})
	if err != nil {
		return r.fail(err)
	}
	r.out.drift = r.out.drift || out.Drift
	m := r.meta("")
	m.Project = s.Project
	r.summary = summaryDrift(r.in.Environment, out, m, r.env.Now())
	if out.Drift {
		r.a.Warningf("drift detected in %s: %s", projectEnv(s.Project, r.in.Environment), out.IssueURL)
		if r.in.FailOnDrift {
			return ExitFail
		}
	}
	return ExitOK
}

// planCheckout plans the checkout without a pull request (command: plan on
// a push, schedule or dispatch): summary, plan.json and outputs, no comment
// and no saved plan.
func (r *run) planCheckout(ctx context.Context) int {
	cfg, err := r.checkoutConfig(ctx)
	if err != nil {
		return r.fail(err)
	}
	out, err := review.Plan(ctx, r.deps, review.PlanRequest{Settings: r.settings(), HeadSHA: r.ghctx.SHA, Config: cfg})
	if err != nil {
		return r.fail(err)
	}
	r.reportPolicy(ctx, out, "")
	return r.planned(out)
}

// planned reports a plan: plan.json for the artifact, outputs, summary.
func (r *run) planned(out *review.PlanOutcome) int {
	r.learn(nil, out.Plan)
	if out.Plan != nil {
		// Added up over the projects a run reports (projects.go).
		c := out.Plan.Counters
		r.out.hasChanges = r.out.hasChanges || out.Plan.HasChanges()
		r.out.creates, r.out.updates, r.out.replaces, r.out.destroys = r.out.creates+c.Create, r.out.updates+c.Update, r.out.replaces+c.Replace, r.out.destroys+c.Destroy
		r.out.moves, r.out.imports = r.out.moves+c.Move, r.out.imports+c.Import
	}
	r.out.commentURL = cmp.Or(r.out.commentURL, out.CommentURL)
	if len(out.Redacted) > 0 {
		file, err := r.writePlanFile(out.Redacted)
		if err != nil {
			return r.fail(err)
		}
		if r.out.planFile == "" {
			r.out.planFile = file
		} else {
			r.out.planFile = r.planDir() // several projects' plans: the directory holding them
		}
	}
	r.summary = out.Summary
	return ExitOK
}

// applied reports an apply; onMerge makes a refusal fail the job, so that a
// merged change that was not applied is visible.
func (r *run) applied(out *review.ApplyOutcome, err error, onMerge bool) int {
	if err != nil {
		return r.fail(err)
	}
	r.out.applied = r.out.applied || out.Applied
	r.out.commentURL = cmp.Or(r.out.commentURL, out.CommentURL)
	if out.Result != nil {
		r.learn(nil, out.Result.Plan)
	}
	secrets := r.known()
	r.summary = summaryApply(r.in.Environment, out, r.meta(out.HeadSHA), secrets)
	if out.Refused != nil {
		if onMerge && out.Number != 0 {
			r.a.Errorf("the merged pull request's plan was not applied: %s", secrets.Scrub(out.Refused.Message))
			return ExitFail
		}
		r.a.Noticef("apply refused: %s", secrets.Scrub(out.Refused.Message))
		return ExitOK
	}
	if out.Result != nil {
		if err := out.Result.Err(); err != nil {
			r.a.Errorf("%s", secrets.Error(err))
			return ExitFail
		}
	}
	return ExitOK
}

func (r *run) meta(sha string) render.Meta {
	return render.Meta{CommitSHA: sha, RunURL: r.runURL(), ArtifactURL: r.runURL(), Environment: r.in.Environment}
}

func envName(env string) string {
	if env == "" {
		return "default"
	}
	return env
}
