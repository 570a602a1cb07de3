package review

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/kyku/action/internal/command"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/render"
)

// Comment handles an issue_comment event. It ignores, without any API call:
// actions other than "created", comments on issues that are not pull
// requests, comments by bots (the App's own included), comments without a
// /kyku command line, and commands whose -e/-p name another environment or
// project than s (another job handles those; a command without -e is for
// s.Environment, without -p for s.Project).
//
// Otherwise it reacts eyes and runs the command: help → a help reply; an
// invalid command → a reply with the error and the help; plan → checked
// by Authorize (an open pull request, not from a fork unless
// Settings.AllowForkPRs, a commenter with Settings.PlanPermission; a
// refusal is a one-line reply and a -1 reaction), then the PR's head
// config through Deps.Source, the backend through Deps.Trusted, and Plan
// (the plan comment is the answer); apply → Apply with the commenter and
// the head they saw (CommentEvent.SeenHead).
// Help and error replies are upserted with a marker naming the command
// comment (ReplyMarker), so several jobs answering one comment leave one
// reply; a refusal, decided for s's target, with one naming the target
// too (TargetReplyMarker), so each target's answer is kept.
func Comment(ctx context.Context, d Deps, s Settings, ev CommentEvent) (*CommentOutcome, error) {
	if why := ignored(ev); why != "" {
		return &CommentOutcome{Ignored: why}, nil
	}
	cmd, _ := command.Parse(ev.Body)
	if why := otherTarget(s, cmd); why != "" {
		return &CommentOutcome{Ignored: why}, nil
	}
	d, s, err := ready(d, s)
	if err != nil {
		return nil, err
	}
	out := &CommentOutcome{Command: cmd.String()}
	react(ctx, d, ev.CommentID, ReactStarted)
	switch {
	case cmd.Err != "":
		out.Command = ""
		err := replyTo(ctx, d, ev, out, ReplyMarker(ev.CommentID), commandErrorReply(cmd.Err, d.RunURL))
		react(ctx, d, ev.CommentID, ReactFailed)
		return out, err
	case cmd.Name == command.Help:
		err := replyTo(ctx, d, ev, out, ReplyMarker(ev.CommentID), render.HelpComment())
		if err == nil {
			react(ctx, d, ev.CommentID, ReactPlanned)
		}
		return out, err
	case cmd.Name == command.Plan:
		p, refused, err := commentPlan(ctx, d, s, ev)
		out.Plan = p
		if refused != nil && err == nil {
			return out, refuseCommand(ctx, d, s, ev, out, refused)
		}
		if err != nil {
			react(ctx, d, ev.CommentID, ReactFailed)
			return out, err
		}
		react(ctx, d, ev.CommentID, ReactPlanned)
		return out, nil
	case cmd.Name == command.Apply && !s.Apply.OnComment():
		return out, refuseCommand(ctx, d, s, ev, out, ApplyModeRefusal(s, TriggerComment))
	case cmd.Name == command.Apply:
		req := ApplyRequest{Settings: s, Number: ev.Number, Commenter: ev.Author, CommentID: ev.CommentID, AllowDestroyAll: cmd.AllowDestroyAll, SeenHead: ev.SeenHead, CommentedAt: ev.CommentedAt}
		a := &applier{d: d, s: s, req: req, out: &ApplyOutcome{Number: ev.Number}}
		ao, err := a.run(ctx, nil)
		out.Apply = ao
		return out, err
	}
	return out, fmt.Errorf("command %s: not handled", cmd.Name)
}

// ignored says why ev is not acted on, from the event alone.
func ignored(ev CommentEvent) string {
	switch {
	case ev.Action != "created":
		return "comment " + ev.Action + ", not created"
	case !ev.IsPR:
		return "not a pull request"
	case ev.AuthorIsBot:
		return "comment by a bot (" + ev.Author + ")"
	}
	if _, ok := command.Parse(ev.Body); !ok {
		return "no /kyku command"
	}
	return ""
}

// otherTarget says why cmd is for another job.
func otherTarget(s Settings, cmd command.Command) string {
	switch {
	case cmd.Env != "" && cmd.Env != s.Environment:
		return "for environment " + strconv.Quote(cmd.Env) + ", not " + strconv.Quote(s.Environment)
	case cmd.Project != "" && cmd.Project != s.Project:
		return "for project " + strconv.Quote(cmd.Project) + ", not " + strconv.Quote(s.Project)
	}
	return ""
}

// refuseCommand answers a command refused before it ran for s's target:
// the outcome, a one-line reply of the target's own, a -1 reaction.
func refuseCommand(ctx context.Context, d Deps, s Settings, ev CommentEvent, out *CommentOutcome, r *Refusal) error {
	out.Refused = r
	err := replyTo(ctx, d, ev, out, TargetReplyMarker(ev.CommentID, s.Project, s.Environment), CommandRefused(out.Command, r))
	react(ctx, d, ev.CommentID, ReactRefused)
	return err
}

// replyTo upserts a reply to the command comment, found again by marker
// (among Kyku's own comments only: github.Repo.Upsert), and records its
// URL.
func replyTo(ctx context.Context, d Deps, ev CommentEvent, out *CommentOutcome, marker, body string) error {
	c, err := d.GitHub.Upsert(ctx, ev.Number, marker, body)
	if err != nil {
		return fmt.Errorf("reply on #%d: %w", ev.Number, err)
	}
	out.Replied = c.HTMLURL
	return nil
}

// ReplyMarker marks the reply to the command comment commentID that is
// the same for every target it names (help, a command that cannot be
// read, a refusal decided once for all), so that the jobs answering one
// comment leave one reply.
func ReplyMarker(commentID int64) string {
	return "<!-- kyku:reply comment=" + strconv.FormatInt(commentID, 10) + " -->"
}

// TargetReplyMarker marks the reply of one target's job (project and
// env) to the command comment commentID: a command naming several
// targets keeps each one's answer, none written over by another's. Both
// fields are always there, percent-escaped, so that no name ends the
// marker early or makes it another's (nor ReplyMarker's).
func TargetReplyMarker(commentID int64, project, env string) string {
	return "<!-- kyku:reply comment=" + strconv.FormatInt(commentID, 10) + " env=" + url.PathEscape(env) +
		" project=" + url.PathEscape(project) + " -->"
}

// Authorize reads pull request number and decides, by the rules Comment
// applies, whether author may run the command name (plan or apply) on it.
// plan needs an open pull request, not from a fork unless s.AllowForkPRs,
// and s.PlanPermission; apply needs an apply mode that applies on a
// comment and what Apply checks before approvals (an open pull request,
// not from a fork unless s.AllowForkPRs, and s.ApplyPermission). pr is nil
// when it could not be read; refused is nil when they may; err is set when
// a step failed. The bot calls it before handing a command to the user's
// workflow (execution: actions) and before queueing one again.
func Authorize(ctx context.Context, gh Reviews, s Settings, name command.Name, author string, number int) (pr *github.PR, refused *Refusal, err error) {
	if pr, err = gh.PullRequest(ctx, number); err != nil {
		return nil, nil, fmt.Errorf("get pull request #%d: %w", number, err)
	}
	if s, err = s.withDefaults(); err != nil {
		return pr, nil, err
	}
	switch name {
	case command.Plan:
		if r := planPRRefusal(pr, s); r != nil {
			return pr, r, nil
		}
		refused, err = permissionRefusal(ctx, gh, s, "plan", author)
	case command.Apply:
		if r := ApplyModeRefusal(s, TriggerComment); r != nil {
			return pr, r, nil
		}
		if r := prRefusal(pr, s, false); r != nil {
			return pr, r, nil
		}
		refused, err = permissionRefusal(ctx, gh, s, "apply", author)
	}
	return pr, refused, err
}

// planPRRefusal says why pr is not planned (nil when it may be).
func planPRRefusal(pr *github.PR, s Settings) *Refusal {
	switch {
	case pr.State != "open":
		return refusal(RequirePullRequest, planNotOpenText(pr.Number, pr.State))
	case pr.IsFork && !s.AllowForkPRs:
		return refusal(RequirePullRequest, ForkNotPlanned(pr.Number, pr.HeadRepoFullName))
	}
	return nil
}

// commentPlan runs /kyku plan: the PR's head config, the trusted backend.
// refused is set (and nothing done) when Authorize refuses.
func commentPlan(ctx context.Context, d Deps, s Settings, ev CommentEvent) (*PlanOutcome, *Refusal, error) {
	fail := func(sha string, err error) (*PlanOutcome, *Refusal, error) {
		if s.CommentMode != ModeOff {
			if _, cerr := postPlanComment(ctx, d.GitHub, s, ev.Number, failedPlanBody(s, sha, d.RunURL, err, nil)); cerr != nil {
				err = errors.Join(err, cerr)
			}
		}
		return nil, nil, err
	}
	pr, refused, err := Authorize(ctx, d.GitHub, s, command.Plan, ev.Author, ev.Number)
	if pr == nil {
		return fail("", err)
	}
	if err != nil || refused != nil {
		return nil, refused, err
	}
	if d.Source == nil {
		return fail(pr.HeadSHA, errors.New("no source loader for the pull request's config"))
	}
	trusted, err := d.trusted(ctx, nil)
	if err != nil {
		return fail(pr.HeadSHA, err)
	}
	cfg, err := d.Source(ctx, pr.HeadSHA)
	if err != nil {
		return fail(pr.HeadSHA, fmt.Errorf("load the config at %s: %w", sha7(pr.HeadSHA), err))
	}
	out, err := Plan(ctx, d, PlanRequest{Settings: s, Number: pr.Number, HeadSHA: pr.HeadSHA, Config: cfg, Trusted: trusted})
	return out, nil, err
}
