package bot

import (
	"context"
	"log/slog"

	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/github"
)

// routeMerge applies, when the settings say so, the saved plans of the
// projects a merged pull request touched.
func (b *Bot) routeMerge(ctx context.Context, ev event, repo *github.Repo) (string, error) {
	s, err := loadSettings(ctx, repo)
	if isDiag(err) {
		_, cerr := repo.CreateComment(ctx, ev.number, settingsProblem(err)+"\nNothing was applied.")
		return "settings-error", cerr
	}
	if err != nil {
		return "", err
	}
	if !s.Apply.OnMerge() {
		return "ignored", nil
	}
	return b.routeTouched(ctx, ev, repo, s, "apply", ev.mergeSHA, func(t settings.Target, src *sources) queue.Job {
		return b.mergeJob(ev, repo, s, t, src)
	})
}

func (b *Bot) mergeJob(ev event, repo *github.Repo, s *settings.Settings, t settings.Target, src *sources) queue.Job {
	return queue.Job{
		Kind:  "merge-apply",
		Key:   targetKey(ev, t),
		Attrs: []slog.Attr{slog.String("repo", ev.fullName()), slog.Int("pr", ev.number), slog.String("target", t.Label())},
		Run: func(ctx context.Context) (string, error) {
			out, err := b.rules.ApplyMerged(ctx, b.deps(ev, repo, src, t), reviewSettings(s, t), ev.mergeSHA, ev.merger)
			switch {
			case err != nil:
				return "", err
			case out != nil && out.Applied:
				return "applied", nil
			}
			return "refused", nil
		},
	}
}
