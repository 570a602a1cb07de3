package bot

import (
	"errors"
	"strings"

	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/command"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/markdown"
	"github.com/kyku/action/internal/review"
)

// The bot's own texts (its settings, its routing), one render function
// each; testdata/replies.md holds every one. The review rules' texts are
// package review's.

// settingsProblem says why the settings on the default branch cannot be
// read, for a comment or a check run.
func settingsProblem(err error) string {
	var ds diag.Diagnostics
	if errors.As(err, &ds) {
		return "Kyku cannot read " + markdown.Code(settings.Path) + " on the default branch:\n\n" + review.Fenced(ds.Error())
	}
	return "Kyku cannot read " + markdown.Code(settings.Path) + " on the default branch: " + markdown.Code(err.Error()) + "\n"
}

// settingsCheck is the check run "kyku settings" of bad settings.
func settingsCheck(err error) github.CheckRun {
	return github.CheckRun{Name: "kyku settings", Status: github.CheckCompleted, Conclusion: github.CheckFailure,
		Title: "Invalid " + settings.Path, Summary: settingsProblem(err)}
}

// settingsMergeReply answers a merge whose settings (from before it)
// cannot be read.
func settingsMergeReply(err error) string { return settingsProblem(err) + "\nNothing was applied." }

// mergeRefsReply answers a merge whose commit's parents cannot be read.
func mergeRefsReply(err error) string {
	return "Kyku cannot tell which rules judge this merge: it reads them on the default branch as it was before it (from the merge commit's parents), and " +
		markdown.Code(err.Error()) + ".\nNothing was applied.\n"
}

// noTargetReply answers a command naming no project and environment of s.
func noTargetReply(cmd command.Command, s *settings.Settings) string {
	var known []string
	for _, t := range s.Targets() {
		known = append(known, markdown.Code(t.Label()))
	}
	return markdown.Code(cmd.String()) + ": no project and environment of this repository match. Known: " + strings.Join(known, ", ") + "."
}

// promotionStoppedReply: a merge's apply stopped at target, which was not
// applied completely; left are the later targets in the promotion order.
func promotionStoppedReply(at string, left []string) string {
	names := make([]string, len(left))
	for i, l := range left {
		names[i] = markdown.Code(l)
	}
	verb := "were"
	if len(left) == 1 {
		verb = "was"
	}
	return "Kyku stopped applying this merge at " + markdown.Code(at) + ", which was not applied completely: " +
		strings.Join(names, ", ") + " (later in the promotion order) " + verb + " not applied. Fix the cause, then apply them in order.\n"
}
