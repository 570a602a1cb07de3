package review

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/statemgr"
)

// Reactions on the /kyku comment.
const (
	ReactStarted = "eyes"     // the command was seen and work started
	ReactApplied = "rocket"   // the saved plan was applied
	ReactPlanned = "+1"       // a plan was made
	ReactRefused = "-1"       // a requirement failed: nothing was applied
	ReactFailed  = "confused" // an error (bad command, failed plan or apply)
)

// Apply checks the apply requirements, in this order, and applies the PR's
// saved plan for its current head SHA:
//
//  1. the PR is open (on merge: merged), and not from a fork unless
//     Settings.AllowForkPRs;
//  2. the commenter has at least Settings.ApplyPermission (not on merge:
//     merging already needed write permission);
//  3. with RequireApproval, someone other than the author approved the
//     current head SHA (on merge too: the final head; fail closed);
//  4. a saved plan exists for the head SHA;
//  5. it is not stale (the engine checks lineage and serial under the lock).
//
// A failed requirement is not an error: the outcome says which (Refused,
// with how to fix it), the PR gets a reply (a new comment tagged with
// render.ApplyMarker), the command comment a -1 reaction, and nothing is
// applied. Otherwise exactly the saved plan is applied, an AuditRecord is
// written to the backend, and the result is commented on the PR. A failed
// apply (Result.Err() != nil) is still Applied, audited and commented (with
// how to finish); the front door decides the exit code.
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
}

func (a *applier) trigger() string {
	if a.req.OnMerge {
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
	if msg := a.checkPR(); msg != "" {
		return a.refuse(ctx, msg)
	}
	if !a.req.OnMerge {
		level, err := gh.Permission(ctx, a.req.Commenter)
		if err != nil {
			return a.fail(ctx, fmt.Errorf("check the permission of %s: %w", a.req.Commenter, err))
		}
		if !github.HasPermission(level, a.s.ApplyPermission) {
			return a.refuse(ctx, code(a.req.Commenter)+" has "+code(level)+" permission on this repository; "+
				code("/kyku apply")+" needs at least "+code(a.s.ApplyPermission)+". Ask someone with "+
				code(a.s.ApplyPermission)+" permission to comment "+code(commandFor("apply", a.s))+".")
		}
	}
	approvers, err := gh.ApprovedBy(ctx, pr.Number, pr.HeadSHA, pr.Author)
	if err != nil {
		return a.fail(ctx, fmt.Errorf("list approvals of #%d: %w", pr.Number, err))
	}
	a.out.Approvers = approvers
	if a.s.RequireApproval && len(approvers) == 0 {
		return a.refuse(ctx, a.noApproval())
	}

	cfg, err := a.d.trusted(ctx, a.req.Trusted)
	if err != nil {
		return a.fail(ctx, err)
	}
	ws, err := a.d.open(ctx, cfg, a.s.Environment)
	if err != nil {
		return a.fail(ctx, err)
	}
	key := SavedPlanKey(a.s.Project, a.s.Environment, pr.Number, pr.HeadSHA)
	data, err := ws.Backend.GetObject(ctx, key)
	if errors.Is(err, statemgr.ErrNotFound) {
		return a.refuse(ctx, a.noPlan())
	}
	if err != nil {
		return a.fail(ctx, fmt.Errorf("read saved plan %s: %w", key, err))
	}
	p, err := plan.Decode(key, data)
	if err != nil {
		return a.refuse(ctx, "The saved plan for "+code(sha7(pr.HeadSHA))+" cannot be read ("+code(err.Error())+"). "+a.replan())
	}
	hidden := planSecrets(p)
	for _, x := range hidden {
		a.d.Mask(x)
	}
	sum := sha256.Sum256(data)
	a.out.Digest = hex.EncodeToString(sum[:])

	started := a.d.Now()
	res, err := ws.Engine.Apply(ctx, nil, engine.ApplyOptions{AutoApprove: true}, p)
	if engine.IsStale(err) {
		return a.refuse(ctx, "The saved plan for "+code(sha7(pr.HeadSHA))+" is a "+errorText(err, hidden)+". "+a.replan())
	}
	if err != nil && (res == nil || !res.Applied) {
		return a.fail(ctx, fmt.Errorf("apply %s: %w", envName(a.s.Environment), scrubbed(err, hidden)))
	}
	if err != nil {
		err = scrubbed(err, hidden)
	}
	return a.finish(ctx, ws, res, err, started, hidden)
}

// checkPR is requirement 1: the PR's state and origin.
func (a *applier) checkPR() string {
	pr, n := a.pr, "Pull request #"+itoa(a.pr.Number)
	switch {
	case a.req.OnMerge && !(pr.Merged && pr.State == "closed"):
		return n + " is not merged: only a merged pull request's plan is applied on merge."
	case !a.req.OnMerge && pr.Merged:
		return n + " is already merged: " + code("/kyku apply") + " applies the plan of an open pull request. " +
			"Re-plan on the default branch, then apply."
	case !a.req.OnMerge && pr.State != "open":
		return n + " is closed: reopen it, comment " + code(commandFor("plan", a.s)) + ", then " + code(commandFor("apply", a.s)) + "."
	case pr.IsFork && !a.s.AllowForkPRs:
		return n + " comes from a fork (" + code(pr.HeadRepoFullName) + "), and plans from forks are not applied: " +
			"a fork's workflow runs with a read-only token and without secrets, and anyone can open one. " +
			"Push the branch to this repository and open the pull request from there, " +
			"or have a maintainer allow fork pull requests in Kyku's settings."
	}
	return ""
}

func (a *applier) noApproval() string {
	sha := code(sha7(a.pr.HeadSHA))
	if a.req.OnMerge {
		return "Pull request #" + itoa(a.pr.Number) + " was merged without an approval of its final head commit " + sha +
			" by someone other than its author (" + code(a.pr.Author) + "), which this environment requires. " +
			"Re-plan on the default branch, have the change approved, then apply."
	}
	return "Pull request #" + itoa(a.pr.Number) + " has no approval of its current head commit " + sha +
		" by someone other than its author (" + code(a.pr.Author) + "); an approval of an earlier commit does not count. " +
		"Ask a reviewer to approve the current changes, then comment " + code(commandFor("apply", a.s)) + " again."
}

func (a *applier) noPlan() string {
	sha := code(sha7(a.pr.HeadSHA))
	if a.req.OnMerge {
		return "No plan for " + sha + ", the final head of pull request #" + itoa(a.pr.Number) + ", was saved. " + a.replan()
	}
	return "No plan for " + sha + " (the pull request's current head): push or comment " + code(commandFor("plan", a.s)) +
		", review the plan, then comment " + code(commandFor("apply", a.s)) + "."
}

// replan says how to get a plan that can be applied.
func (a *applier) replan() string {
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

// scrubbed is err with secrets masked in its message.
func scrubbed(err error, hidden []string) error {
	if msg := errorText(err, hidden); msg != err.Error() {
		return errors.New(msg)
	}
	return err
}
