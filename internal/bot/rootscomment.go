package bot

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/command"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/tfroots"
)

// commentRoots are the Terraform roots a `/kyku plan` or `/kyku apply`
// comment concerns: those the pull request touches at its head that
// the command names (-p <root>; every one when it names no project and
// no environment, roots having none), with terraform-roots on.
func (rt *router) commentRoots(ctx context.Context, ev event, repo *github.Repo, s *settings.Settings, src *sources) ([]string, error) {
	cmd := ev.comment.cmd
	if !s.TerraformRoots || cmd.Err != "" || (cmd.Name != command.Plan && cmd.Name != command.Apply) || cmd.Env != "" {
		return nil, nil
	}
	pr, err := repo.PullRequest(ctx, ev.number)
	if err != nil {
		return nil, err
	}
	files, err := repo.ChangedFiles(ctx, ev.number)
	if err != nil {
		return nil, err
	}
	at := ev
	at.headSHA = pr.HeadSHA
	roots, err := rt.touchedRoots(ctx, at, s, src, files)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, root := range roots {
		if cmd.Project == "" || cmd.Project == tfroots.Project(root) {
			out = append(out, root)
		}
	}
	return out, nil
}

// rootCommentJob runs the comment's command for root: its plan or its
// saved plan's apply, the state opened where the default branch's
// backend says once the pull request's head is known not to move it. It
// waits behind the root's other jobs, so it is judged by the settings as
// they are when it runs, not as the route read them.
func (rt *router) rootCommentJob(ev event, repo *github.Repo, root string, src *sources) queue.Job {
	t := rootTarget(root)
	return queue.Job{
		Kind: ev.comment.cmd.Name.String(),
		Key:  targetKey(ev, t),
		Attrs: []slog.Attr{slog.String("repo", ev.fullName()), slog.Int("pr", ev.number), slog.String("root", root),
			slog.String("author", ev.comment.author)},
		Run: func(ctx context.Context) (string, error) {
			s, outcome, err := rt.rootSettingsNow(ctx, ev, repo, root)
			if s == nil {
				return outcome, err
			}
			pr, err := repo.PullRequest(ctx, ev.number)
			if err != nil {
				return "", err
			}
			trees, err := newRootTrees(src)
			if err != nil {
				return "", err
			}
			defer trees.remove()
			head, err := trees.load(ctx, pr.HeadSHA, root)
			if err != nil {
				return "config-error", fmt.Errorf("%s of %s: %w", ev.comment.cmd.Name, root, err)
			}
			use := review.CommentRootUse(ev.comment.cmd.Name)
			trusted, err := trees.trusted(ctx, rootRefs(s, root, use, ev.defaultBranch, pr.HeadSHA, "")) // a new root not allowed: refused when the state is opened
			if err != nil {
				return "", err
			}
			out, err := rt.rules.Comment(ctx, rt.rootDeps(ev, repo, src, trees, root, trusted, head), reviewSettings(s, t), rt.commentEvent(ev))
			return commentOutcome(out), err
		},
	}
}
