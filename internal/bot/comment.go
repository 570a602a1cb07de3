package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/command"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/review"
)

// routeComment runs a `/kyku` command: help (and invalid commands) are
// answered at once by review, plan and apply run as one job per matching
// project/environment, serialised with that target's other jobs.
func (rt *router) routeComment(ctx context.Context, ev event, repo *github.Repo) (string, error) {
	if ev.comment.cmd.Name == command.Apply && ev.comment.cmd.Err == "" {
		head, err := rt.seenHead(ctx, ev, repo)
		if err != nil {
			return "", err
		}
		ev.comment.seenHead = head
	}
	s, err := loadSettings(ctx, repo, "")
	if isDiag(err) {
		_, cerr := repo.CreateComment(ctx, ev.number, settingsProblem(err))
		return "settings-error", cerr
	}
	if err != nil {
		return "", err
	}
	cmd := ev.comment.cmd
	targets := matching(s.Targets(), cmd)
	var roots []string
	if s.Execution == settings.InProcess {
		src := newSources(repo, rt.maxSrc)
		if roots, err = rt.commentRoots(ctx, ev, repo, s, src); err != nil {
			return "", err
		}
		if len(roots) > 0 {
			if refused := review.ApplyModeRefusal(reviewSettings(s, rootTarget(roots[0])), review.TriggerComment); cmd.Name == command.Apply && refused != nil {
				_, err := repo.CreateComment(ctx, ev.number, review.CommandRefused(cmd.String(), refused))
				return "refused", err
			}
			for _, root := range roots {
				if err := rt.runner.Spawn(ctx, rt.rootCommentJob(ev, repo, root, src)); err != nil {
					return "", fmt.Errorf("queue %s of %s: %w", cmd.Name, root, err)
				}
			}
			if cmd.Project != "" {
				return "routed", nil // it named a root, not a project of kyku.yaml
			}
		}
	}
	if len(targets) == 0 && len(roots) > 0 {
		return "routed", nil
	}
	if len(targets) == 0 {
		_, err := repo.CreateComment(ctx, ev.number, noTargetReply(cmd, s))
		return "no-target", err
	}
	rs := reviewSettings(s, targets[0]) // what is decided once for every target
	if (cmd.Name != command.Plan && cmd.Name != command.Apply) || cmd.Err != "" {
		// help and invalid commands touch no state: answer once, here.
		out, err := rt.rules.Comment(ctx, rt.deps(ev, repo, newSources(repo, rt.maxSrc), targets[0]), rs, rt.commentEvent(ev))
		return commentOutcome(out), err
	}
	if refused := review.ApplyModeRefusal(rs, review.TriggerComment); cmd.Name == command.Apply && refused != nil {
		// Decided once for every target the command names: one reply.
		_, err := repo.CreateComment(ctx, ev.number, review.CommandRefused(cmd.String(), refused))
		return "refused", err
	}
	if s.Execution == settings.Actions {
		// The workflow runs with the repository's credentials: the same
		// rules decide who may ask for it, before it is dispatched.
		pr, refused, err := review.Authorize(ctx, repo, rs, cmd.Name, ev.comment.author, ev.number)
		if err != nil {
			// Decided once for every target: one reply.
			return "", rt.askerUnchecked(ctx, ev, repo, review.ReplyMarker(ev.comment.id), err)
		}
		if refused == nil && cmd.Name == command.Apply {
			refused = review.SeenHeadRefusal(pr, ev.comment.seenHead, rs)
			if refused == nil {
				if refused, err = review.PushedAfterComment(ctx, repo, pr, ev.comment.created, rs); err != nil {
					return "", rt.unchecked(ctx, ev, repo, review.ReplyMarker(ev.comment.id), err, review.HeadUnchecked(pr.HeadSHA))
				}
			}
		}
		if refused != nil {
			_, err := repo.CreateComment(ctx, ev.number, review.CommandRefused(cmd.String(), refused))
			return "refused", err
		}
		return rt.dispatch(ctx, ev, repo, s, targets, cmd.Name.String(), pr.HeadSHA)
	}
	src := newSources(repo, rt.maxSrc)
	for _, t := range targets {
		if err := rt.runner.Spawn(ctx, rt.commentJob(ev, repo, s, t, src)); err != nil {
			return "", fmt.Errorf("queue %s of %s: %w", cmd.Name, t.Label(), err)
		}
	}
	return "routed", nil
}

// commentJob runs review.Comment for one target.
func (rt *router) commentJob(ev event, repo *github.Repo, s *settings.Settings, t settings.Target, src *sources) queue.Job {
	attrs := []slog.Attr{slog.String("repo", ev.fullName()), slog.Int("pr", ev.number), slog.String("target", t.Label()),
		slog.String("author", ev.comment.author)}
	// A commenter who may not run the command opens nothing: the rules
	// refuse them (and judge everything again when they may). A check
	// GitHub failed is answered and ends the job with its error: no apply.
	may := func(ctx context.Context) (bool, error) {
		_, refused, err := review.Authorize(ctx, repo, reviewSettings(s, t), ev.comment.cmd.Name, ev.comment.author, ev.number)
		if err != nil {
			return false, rt.askerUnchecked(ctx, ev, repo, review.TargetReplyMarker(ev.comment.id, t.Project.Name, t.Env), err)
		}
		return refused == nil, nil
	}
	return rt.pullJob(ev.comment.cmd.Name.String(), ev, repo, s, t, src, attrs, may, func(ctx context.Context, d review.Deps, _ *sources, s *settings.Settings, t settings.Target) (string, error) {
		out, err := rt.rules.Comment(ctx, d, reviewSettings(s, t), rt.commentEvent(ev))
		if err == nil && out != nil && out.Plan != nil && out.Plan.Policy != nil {
			pr, perr := repo.PullRequest(ctx, ev.number)
			if perr != nil {
				return commentOutcome(out), perr
			}
			err = rt.policyCheck(ctx, repo, reviewSettings(s, t), out.Plan, pr.HeadSHA)
		}
		return commentOutcome(out), err
	})
}

// askerUnchecked is unchecked for a command whose requester GitHub failed
// to check (Authorize's err).
func (rt *router) askerUnchecked(ctx context.Context, ev event, repo *github.Repo, marker string, err error) error {
	err = fmt.Errorf("check whether %s may %s: %w", ev.comment.author, ev.comment.cmd.Name, err)
	return rt.unchecked(ctx, ev, repo, marker, err, review.CommandUnchecked(ev.comment.cmd.Name, ev.comment.author))
}

// unchecked answers a command GitHub failed to check (who asked, by
// Authorize, or when the head arrived, by PushedAfterComment; err says
// which): reply, one reply to the comment, upserted by marker (a target's
// job: the target's own, so that another target's answer is not written
// over; the route: the comment's), and a confused reaction. It returns the
// error that ends the job.
func (rt *router) unchecked(ctx context.Context, ev event, repo *github.Repo, marker string, err error, reply string) error {
	if _, cerr := repo.Upsert(ctx, ev.number, marker, reply); cerr != nil {
		err = errors.Join(err, fmt.Errorf("reply on #%d: %w", ev.number, cerr))
	}
	if rerr := repo.React(ctx, ev.comment.id, review.ReactFailed); rerr != nil {
		rt.log.WarnContext(ctx, "could not react to the command comment", "repo", ev.fullName(), "comment", ev.comment.id, "error", rerr.Error())
	}
	return err
}

func (rt *router) commentEvent(ev event) review.CommentEvent {
	return review.CommentEvent{
		Action: "created", Number: ev.number, IsPR: true, Body: ev.comment.body,
		Author: ev.comment.author, CommentID: ev.comment.id, SeenHead: ev.comment.seenHead,
		CommentedAt: ev.comment.created,
	}
}

// pinnedHead is the step of a comment's routing job that keeps the head
// read when it arrived, for a replica that takes the job over.
const pinnedHead = "pinned head"

// seenHead is the head of ev's pull request when its comment arrived: read
// by the comment's routing job, the first thing the bot does with it (in
// delivery order with the pull request's other events), and kept with the
// job, so that a takeover pins the same commit rather than a later push.
func (rt *router) seenHead(ctx context.Context, ev event, repo *github.Repo) (string, error) {
	if head := rt.runner.Progress(ctx, pinnedHead).Head; head != "" {
		return head, nil
	}
	pr, err := repo.PullRequest(ctx, ev.number)
	if err != nil {
		return "", fmt.Errorf("read the head of #%d as the comment arrived: %w", ev.number, err)
	}
	rt.runner.Record(ctx, pinnedHead, func(st *jobs.Step) { st.Head = pr.HeadSHA })
	return pr.HeadSHA, nil
}

// commentOutcome labels what review did, for metrics.
func commentOutcome(out *review.CommentOutcome) string {
	switch {
	case out == nil:
		return ""
	case out.Ignored != "":
		return "ignored"
	case out.Refused != nil:
		return "refused"
	case out.Apply != nil && out.Apply.Applied:
		return "applied"
	case out.Apply != nil:
		return "refused"
	case out.Plan != nil:
		return "planned"
	}
	return "answered"
}

// matching keeps the targets a command names (-p, -e); all when it names none.
func matching(all []settings.Target, cmd command.Command) []settings.Target {
	var out []settings.Target
	for _, t := range all {
		if (cmd.Project == "" || cmd.Project == t.Project.Name) && (cmd.Env == "" || cmd.Env == t.Env) {
			out = append(out, t)
		}
	}
	return out
}
