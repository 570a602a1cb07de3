package review

import (
	"context"
	"errors"
	"fmt"

	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/render"
)

// Reactions on the /kyku comment.
const (
	ReactStarted = "eyes"     // the command was seen and work started
	ReactApplied = "rocket"   // the saved plan was applied
	ReactPlanned = "+1"       // a plan was made
	ReactRefused = "-1"       // a requirement failed: nothing was applied
	ReactFailed  = "confused" // an error (bad command, failed plan or apply)
)

// Apply checks the apply requirements, in this order, and applies what was
// reviewed:
//
//  1. the PR is open (on merge: merged), and not from a fork unless
//     Settings.AllowForkPRs;
//  2. the commenter has at least Settings.ApplyPermission (not on merge:
//     merging already needed write permission);
//  3. with RequireApproval, at least Settings.RequiredApprovals approvals
//     of the current head count (on merge too: the final head; fail
//     closed) — see judgeApprovals for what counts;
//  4. a saved plan exists for the head SHA, it decodes, and its embedded
//     configuration hashes to the configuration at that commit;
//  5. Kyku plans again, from the configuration at the head SHA (fetched by
//     SHA through Deps.Source) against the current state, and the fresh
//     plan's ChangesDigest equals the saved plan's and the one shown in
//     Kyku's own newest plan comment for that head (the comment is skipped
//     with comment mode "off");
//  6. the engine applies the FRESH plan under the state lock, refusing it
//     if the state moved on in between.
//
// Nothing a pull request's own workflow run can write — the saved plan, a
// comment written with the workflow's token — is applied as it is: each
// is only compared with a plan Kyku makes itself from the approved commit.
//
// A failed requirement is not an error: the outcome says which (Refused,
// with who counted and how to fix it), the PR gets a reply (a new comment
// tagged with render.ApplyMarker; a mismatch shows the fresh plan for
// review), the command comment a -1 reaction, and nothing is applied.
// Otherwise the plan is applied, an AuditRecord is written to the backend,
// and the result is commented on the PR. A failed apply
// (Result.Err() != nil) is still Applied, audited and commented (with how
// to finish); the front door decides the exit code.
func Apply(ctx context.Context, d Deps, req ApplyRequest) (*ApplyOutcome, error) {
	d, err := d.withDefaults()
	if err != nil {
		return nil, err
	}
	s, err := req.Settings.withDefaults()
	if err != nil {
		return nil, err
	}
	req.Settings = s
	a := &applier{d: d, s: s, req: req, out: &ApplyOutcome{Number: req.Number}}
	a.react(ctx, ReactStarted)
	return a.run(ctx, nil)
}

// applier is one apply request in progress.
type applier struct {
	d   Deps
	s   Settings
	req ApplyRequest
	out *ApplyOutcome
	pr  *github.PR
	ap  approvals
}

func (a *applier) trigger() string {
	switch {
	case a.req.Queue:
		return "merge-queue"
	case a.req.OnMerge:
		return "merge"
	}
	return "comment"
}

// run checks the requirements and applies. pr is the pull request when the
// caller already fetched it.
func (a *applier) run(ctx context.Context, pr *github.PR) (*ApplyOutcome, error) {
	gh := a.d.GitHub
	if pr == nil {
		var err error
		if pr, err = gh.PullRequest(ctx, a.req.Number); err != nil {
			return a.fail(ctx, fmt.Errorf("get pull request #%d: %w", a.req.Number, err))
		}
	}
	a.pr = pr
	a.out.HeadSHA = pr.HeadSHA
	if msg := a.prRefusal(pr); msg != "" {
		return a.refuse(ctx, msg)
	}
	if (a.req.OnMerge || a.req.Queue) && a.d.MergeRules != nil {
		msg, err := a.d.MergeRules(ctx, pr, a.req.MergeSHA)
		if err != nil {
			return a.fail(ctx, fmt.Errorf("check which rules judge the merge of #%d: %w", pr.Number, err))
		}
		if msg != "" {
			return a.refuse(ctx, msg)
		}
	}
	if !a.req.OnMerge && !a.req.Queue {
		msg, err := permissionRefusal(ctx, gh, a.s, "apply", a.req.Commenter)
		if err != nil {
			return a.fail(ctx, err)
		}
		if msg != "" {
			return a.refuse(ctx, msg)
		}
	}
	ap, err := judgeApprovals(ctx, gh, a.s, pr)
	if err != nil {
		return a.fail(ctx, fmt.Errorf("judge the approvals of #%d: %w", pr.Number, err))
	}
	a.ap = ap
	a.out.Approvers, a.out.NotCounted = ap.counted, ap.notCounted
	if a.s.RequireApproval && len(ap.counted) < a.s.RequiredApprovals {
		return a.refuse(ctx, a.noApproval())
	}

	cfg, err := a.d.trusted(ctx, a.req.Trusted)
	if errors.Is(err, ErrNoTrustedConfig) {
		return a.refuse(ctx, "The default branch has no Kyku configuration yet, so there is no trusted backend to apply with: "+
			"a pull request's own backend is used for planning only, never to apply. "+
			"Merge the pull request that adds the configuration (the merge applies it, from the default branch), then apply later changes as usual.")
	}
	if err != nil {
		return a.fail(ctx, err)
	}
	ws, err := a.d.open(ctx, cfg, a.s.Environment)
	if err != nil {
		return a.fail(ctx, err)
	}
	defer ws.close()
	if msg, err := a.promotionRefusal(ctx, ws); err != nil {
		return a.fail(ctx, err)
	} else if msg != "" {
		return a.refuse(ctx, msg)
	}
	return a.applyReviewed(ctx, ws)
}

// prRefusal is requirement 1 for this request ("" when met): in the merge
// queue, an open pull request (it is merged after the check passes).
func (a *applier) prRefusal(pr *github.PR) string {
	if !a.req.Queue {
		return prRefusal(pr, a.s, a.req.OnMerge)
	}
	n := "Pull request #" + itoa(pr.Number)
	switch {
	case pr.Merged || pr.State != "open":
		return n + " is not open, so the merge queue's commit is not applied for it."
	case pr.IsFork && !a.s.AllowForkPRs:
		return prRefusal(pr, a.s, false)
	}
	return ""
}

// prRefusal is requirement 1: the PR's state and origin ("" when met).
func prRefusal(pr *github.PR, s Settings, onMerge bool) string {
	n := "Pull request #" + itoa(pr.Number)
	switch {
	case onMerge && !(pr.Merged && pr.State == "closed"):
		return n + " is not merged: only a merged pull request's plan is applied on merge."
	case !onMerge && pr.Merged:
		return n + " is already merged: " + code("/kyku apply") + " applies the plan of an open pull request. " +
			"Re-plan on the default branch, then apply."
	case !onMerge && pr.State != "open":
		return n + " is closed: reopen it, comment " + code(commandFor("plan", s)) + ", then " + code(commandFor("apply", s)) + "."
	case pr.IsFork && !s.AllowForkPRs:
		return n + " comes from a fork (" + code(pr.HeadRepoFullName) + "), and this repository does not plan or apply pull requests from forks: " +
			"anyone can open one. Push the branch to this repository and open the pull request from there."
	}
	return ""
}

// permissionRefusal checks that user has the permission command (plan or
// apply) needs ("" when they do).
func permissionRefusal(ctx context.Context, gh Reviews, s Settings, command, user string) (string, error) {
	need := s.ApplyPermission
	if command == "plan" {
		need = s.PlanPermission
	}
	level, err := gh.Permission(ctx, user)
	if err != nil {
		return "", fmt.Errorf("check the permission of %s: %w", user, err)
	}
	if level.AtLeast(need) {
		return "", nil
	}
	return code(user) + " has " + code(level.String()) + " permission on this repository; " +
		code("/kyku "+command) + " needs at least " + code(need.String()) + ". Ask someone with " +
		code(need.String()) + " permission to comment " + code(commandFor(command, s)) + ".", nil
}

func (a *applier) noApproval() string {
	sha := code(sha7(a.pr.HeadSHA))
	need := plural(a.s.RequiredApprovals, "approval")
	have := len(a.ap.counted)
	if a.req.Queue {
		return "Pull request #" + itoa(a.pr.Number) + " is in the merge queue without the " + need + " of its head commit " + sha +
			" this environment requires (" + itoa(have) + " counted). " + approvalRule(a.s) + " " + a.ap.who() + " " + a.replan()
	}
	if a.req.OnMerge {
		return "Pull request #" + itoa(a.pr.Number) + " was merged without the " + need + " of its final head commit " + sha +
			" this environment requires (" + itoa(have) + " counted). " + approvalRule(a.s) + " " + a.ap.who() +
			" Re-plan on the default branch, have the change approved, then apply."
	}
	return "Pull request #" + itoa(a.pr.Number) + " needs " + need + " of its current head commit " + sha + " and has " + itoa(have) + ". " +
		approvalRule(a.s) + " " + a.ap.who() +
		" Ask a reviewer to approve the current changes, then comment " + code(commandFor("apply", a.s)) + " again."
}

func (a *applier) noPlan() string {
	sha := code(sha7(a.pr.HeadSHA))
	if a.req.Queue {
		return "No plan for " + sha + ", the head of pull request #" + itoa(a.pr.Number) + ", was saved. " + a.replan()
	}
	if a.req.OnMerge {
		return "No plan for " + sha + ", the final head of pull request #" + itoa(a.pr.Number) + ", was saved. " + a.replan()
	}
	return "No plan for " + sha + " (the pull request's current head): push or comment " + code(commandFor("plan", a.s)) +
		", review the plan, then comment " + code(commandFor("apply", a.s)) + "."
}

// replan says how to get a plan that can be applied.
func (a *applier) replan() string {
	if a.req.Queue {
		return "Nothing was applied, and the merge queue's check fails, so GitHub takes the pull request out of the queue. " +
			"Re-plan it (push, or comment " + code(commandFor("plan", a.s)) + "), have the plan reviewed and approved, then queue it again."
	}
	if a.req.OnMerge {
		return "Nothing was applied. To finish: re-plan on the default branch (push to it, or run the workflow there), review the plan, then apply it."
	}
	return "Comment " + code(commandFor("plan", a.s)) + " to re-plan, review the new plan, then comment " + code(commandFor("apply", a.s)) + "."
}

// refuse answers a failed requirement: outcome, reply, reaction.
func (a *applier) refuse(ctx context.Context, msg string) (*ApplyOutcome, error) {
	a.out.Refused = msg
	heading := title("apply", a.s) + " refused"
	err := a.answer(ctx, reply(render.ApplyMarker(a.s.Project, a.s.Environment), heading, msg+"\n\nNothing was applied.", a.out.HeadSHA, a.d.RunURL))
	a.react(ctx, ReactRefused)
	return a.out, err
}

// fail answers an error that stopped the apply before anything changed.
func (a *applier) fail(ctx context.Context, err error) (*ApplyOutcome, error) {
	heading := title("apply", a.s) + " failed"
	text := "The apply could not run:\n\n" + fenced(err.Error()) + "\nNothing was applied. " + a.replanAfterError()
	if cerr := a.answer(ctx, reply(render.ApplyMarker(a.s.Project, a.s.Environment), heading, text, a.out.HeadSHA, a.d.RunURL)); cerr != nil {
		err = errors.Join(err, cerr)
	}
	a.react(ctx, ReactFailed)
	return a.out, err
}

func (a *applier) replanAfterError() string {
	if a.req.Queue {
		return "Fix the cause, then queue the pull request again."
	}
	if a.req.OnMerge {
		return "Fix the cause, re-plan on the default branch, then apply."
	}
	return "Fix the cause, then comment " + code(commandFor("apply", a.s)) + " again."
}

// answer posts body as a new comment on the PR (none when there is no PR).
func (a *applier) answer(ctx context.Context, body string) error {
	if a.req.Number <= 0 {
		return nil
	}
	url, err := a.d.GitHub.CreateComment(ctx, a.req.Number, body)
	if err != nil {
		return fmt.Errorf("comment on #%d: %w", a.req.Number, err)
	}
	a.out.CommentURL = url
	return nil
}

// react adds a reaction to the command comment, if any; a failure is only
// logged (the reply comment is what the user reads).
func (a *applier) react(ctx context.Context, content string) {
	react(ctx, a.d, a.req.CommentID, content)
}

func react(ctx context.Context, d Deps, commentID int64, content string) {
	if commentID == 0 {
		return
	}
	if err := d.GitHub.React(ctx, commentID, content); err != nil {
		d.Log.WarnContext(ctx, "could not react to the command comment", "comment", commentID, "reaction", content, "error", err)
	}
}
