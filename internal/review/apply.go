package review

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kyku/action/internal/github"
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
//     for a comment, its head is still the one the commenter saw
//     (ApplyRequest.SeenHead) and GitHub held it before the comment was
//     posted (ApplyRequest.CommentedAt, PushedAfterComment): a push after
//     the comment is not applied on the strength of it;
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
	d, s, err := ready(d, req.Settings)
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
	// expanded says the configuration planned again read state or data
	// sources to expand (config.Config.Pending).
	expanded bool
}

func (a *applier) trigger() Trigger {
	switch {
	case a.req.Queue:
		return TriggerMergeQueue
	case a.req.OnMerge:
		return TriggerMerge
	}
	return TriggerComment
}

// request is what a refusal says about this one.
func (a *applier) request() request {
	r := request{s: a.s, number: a.req.Number, trigger: a.trigger(), merge: a.req.MergeSHA}
	if a.pr != nil {
		r.number, r.head = a.pr.Number, a.pr.HeadSHA
	}
	return r
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
	if r := a.prRefusal(pr); r != nil {
		return a.refuse(ctx, r)
	}
	if r := SeenHeadRefusal(pr, a.req.SeenHead, a.s); r != nil {
		return a.refuse(ctx, r)
	}
	if r, err := PushedAfterComment(ctx, gh, pr, a.req.CommentedAt, a.s); err != nil {
		return a.fail(ctx, err)
	} else if r != nil {
		return a.refuse(ctx, r)
	}
	if (a.req.OnMerge || a.req.Queue) && a.d.MergeRules != nil {
		r, err := CheckMergeRules(ctx, a.d.GitHub, *a.d.MergeRules, pr)
		if err != nil {
			return a.fail(ctx, fmt.Errorf("check which rules judge the merge of #%d: %w", pr.Number, err))
		}
		if r != nil {
			return a.refuse(ctx, r)
		}
	}
	if !a.req.OnMerge && !a.req.Queue {
		r, err := permissionRefusal(ctx, gh, a.s, "apply", a.req.Commenter)
		if err != nil {
			return a.fail(ctx, err)
		}
		if r != nil {
			return a.refuse(ctx, r)
		}
	}
	ap, err := judgeApprovals(ctx, gh, a.s, pr)
	if err != nil {
		return a.fail(ctx, fmt.Errorf("judge the approvals of #%d: %w", pr.Number, err))
	}
	a.ap = ap
	a.out.Approvers, a.out.NotCounted = ap.counted, ap.notCounted
	if a.s.RequireApproval && len(ap.counted) < a.s.RequiredApprovals {
		return a.refuse(ctx, refusal(RequireApprovals, noApprovalText(a.request(), a.ap)))
	}

	cfg, err := a.d.trusted(ctx, a.req.Trusted)
	if errors.Is(err, ErrNoTrustedConfig) {
		return a.refuse(ctx, refusal(RequireTrustedConfig, noTrustedConfigText))
	}
	if err != nil {
		return a.fail(ctx, err)
	}
	ws, err := a.d.open(ctx, cfg, a.s.Environment)
	if err != nil {
		return a.fail(ctx, err)
	}
	defer ws.close()
	if r, err := a.promotionRefusal(ctx, ws); err != nil {
		return a.fail(ctx, err)
	} else if r != nil {
		return a.refuse(ctx, r)
	}
	return a.applyReviewed(ctx, ws)
}

// prRefusal is requirement 1 for this request (nil when met): in the
// merge queue, an open pull request (it is merged after the check passes).
func (a *applier) prRefusal(pr *github.PR) *Refusal {
	if !a.req.Queue {
		return prRefusal(pr, a.s, a.req.OnMerge)
	}
	switch {
	case pr.Merged || pr.State != "open":
		return refusal(RequirePullRequest, queueNotOpenText(pr.Number))
	case pr.IsFork && !a.s.AllowForkPRs:
		return prRefusal(pr, a.s, false)
	}
	return nil
}

// SeenHeadRefusal is requirement 1's pin for a /kyku apply: pr's head is
// still seen, the one the commenter saw ("" pins nothing); nil when met.
// The bot checks it too before it hands a command to the user's workflow.
func SeenHeadRefusal(pr *github.PR, seen string, s Settings) *Refusal {
	if seen == "" || pr.HeadSHA == seen {
		return nil
	}
	return refusal(RequireSeenHead, headMovedText(pr.Number, seen, pr.HeadSHA, s))
}

// PushedAfterComment is the pin by GitHub's own clock: pr's head reached
// GitHub (github.Repo.HeadArrived: its oldest check suite), or its head
// branch was pushed to (github.Repo.BranchPushedAfter: the head
// repository's activity, which catches a commit GitHub held before, pushed
// to another branch first or an earlier head pushed again) or
// force-pushed (github.Repo.ForcePushedAfter: the pull request's events,
// which GitHub keeps for a fork's branch too), after the /kyku apply
// comment was posted at commentedAt, so its commenter cannot have seen the
// head as it is, whatever order the comment and the push were delivered
// or read in (SeenHeadRefusal reads the head when the comment is handled,
// which a push in between gets past). Nil when met or when commentedAt is
// zero; what GitHub cannot tell (a commit without suites, no checks:
// read, a head repository the token cannot see) leaves the other checks
// and the head read on the comment's arrival, but for a fork: only its
// activity tells its branch's pushes, so a fork whose activity GitHub
// will not show the token is refused. Times are whole seconds, so what
// happened in the comment's own second cannot be told from what came
// before it: it counts as after (its commenter cannot have seen a plan of
// a head GitHub got in that second; a plan takes seconds to make).
func PushedAfterComment(ctx context.Context, gh Reviews, pr *github.PR, commentedAt time.Time, s Settings) (*Refusal, error) {
	if commentedAt.IsZero() {
		return nil, nil
	}
	second := commentedAt.Truncate(time.Second)
	after := func(t time.Time) bool { return !t.IsZero() && !t.Truncate(time.Second).Before(second) }
	since := second.Add(-time.Nanosecond) // what the searches below take: what came after it
	arrived, err := gh.HeadArrived(ctx, pr.HeadSHA)
	if err != nil {
		return nil, fmt.Errorf("check when the head of #%d reached GitHub: %w", pr.Number, err)
	}
	if after(arrived) {
		return refusal(RequireSeenHead, pushedAfterText(pr.Number, pr.HeadSHA, arrived, commentedAt, s)), nil
	}
	pushed, readable, err := gh.BranchPushedAfter(ctx, pr.HeadRepoFullName, pr.HeadRef, since)
	if err != nil {
		return nil, fmt.Errorf("check whether the branch of #%d was pushed since the comment: %w", pr.Number, err)
	}
	if after(pushed) {
		return refusal(RequireSeenHead, branchPushedAfterText(pr.Number, pr.HeadRef, pr.HeadSHA, pushed, commentedAt, s)), nil
	}
	forced, err := gh.ForcePushedAfter(ctx, pr.Number, since)
	if err != nil {
		return nil, fmt.Errorf("check whether the head of #%d was force-pushed since the comment: %w", pr.Number, err)
	}
	if after(forced) {
		return refusal(RequireSeenHead, forcePushedAfterText(pr.Number, pr.HeadSHA, forced, commentedAt, s)), nil
	}
	if !readable && pr.IsFork {
		// A fork's branch fast-forwarded to a commit GitHub held before
		// leaves no newer suite and no force-push: only its activity says.
		return refusal(RequireSeenHead, forkPushesUnreadText(pr.Number, pr.HeadRepoFullName, pr.HeadRef)), nil
	}
	return nil, nil
}

// prRefusal is requirement 1: the PR's state and origin (nil when met).
func prRefusal(pr *github.PR, s Settings, onMerge bool) *Refusal {
	switch {
	case onMerge && !(pr.Merged && pr.State == "closed"):
		return refusal(RequirePullRequest, notMergedText(pr.Number))
	case !onMerge && pr.Merged:
		return refusal(RequirePullRequest, alreadyMergedText(pr.Number))
	case !onMerge && pr.State != "open":
		return refusal(RequirePullRequest, closedText(pr.Number, s))
	case pr.IsFork && !s.AllowForkPRs:
		return refusal(RequirePullRequest, forkText(pr.Number, pr.HeadRepoFullName))
	}
	return nil
}

// permissionRefusal checks that user has the permission command (plan or
// apply) needs (nil when they do).
func permissionRefusal(ctx context.Context, gh Reviews, s Settings, command, user string) (*Refusal, error) {
	need := s.ApplyPermission
	if command == "plan" {
		need = s.PlanPermission
	}
	level, err := gh.Permission(ctx, user)
	if err != nil {
		return nil, fmt.Errorf("check the permission of %s: %w", user, err)
	}
	if level.AtLeast(need) {
		return nil, nil
	}
	return refusal(RequirePermission, permissionText(user, level.String(), command, s)), nil
}

// refuse answers a failed requirement: outcome, reply, reaction.
func (a *applier) refuse(ctx context.Context, r *Refusal) (*ApplyOutcome, error) {
	a.out.Refused = r
	err := a.answer(ctx, refusedReply(a.s, r, a.out.HeadSHA, a.d.RunURL))
	a.react(ctx, ReactRefused)
	return a.out, err
}

// fail answers an error that stopped the apply before anything changed.
func (a *applier) fail(ctx context.Context, err error) (*ApplyOutcome, error) {
	if cerr := a.answer(ctx, applyFailedReply(a.request(), err, a.out.HeadSHA, a.d.RunURL)); cerr != nil {
		err = errors.Join(err, cerr)
	}
	a.react(ctx, ReactFailed)
	return a.out, err
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
