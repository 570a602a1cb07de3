package review

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/noun"
)

// NotCounted is an approval (or a withdrawn one) that does not count, and
// why, as told to the user.
type NotCounted struct {
	Reviewer string
	Why      string
}

// approvals is how the reviews of a pull request were judged.
type approvals struct {
	counted    []string // logins, sorted
	notCounted []NotCounted
}

// judgeApprovals applies the approval rule to pr's reviews. An approval
// counts when all of these hold:
//
//   - it is the reviewer's latest deciding review: a later
//     CHANGES_REQUESTED review or a dismissal cancels it (a COMMENTED one
//     does not);
//   - it was submitted on pr's current head commit;
//   - the reviewer is not the pull request's author;
//   - the reviewer is not a bot (account type Bot, or a login ending in
//     "[bot]");
//   - the reviewer authored or committed none of the pull request's
//     commits (GitHub's own rule is the last pusher; Kyku, which cannot see
//     pushes, excludes every author and committer);
//   - the reviewer has at least s.ApproverPermission on the repository.
//
// Every review is read (all pages). A pull request with
// github.MaxPullRequestCommits commits or more fails closed: GitHub lists
// no more, so Kyku cannot tell who pushed the rest.
func judgeApprovals(ctx context.Context, gh Reviews, s Settings, pr *github.PR) (approvals, error) {
	var out approvals
	reviews, err := gh.Reviews(ctx, pr.Number)
	if err != nil {
		return out, fmt.Errorf("list reviews of #%d: %w", pr.Number, err)
	}
	var deciding []github.Review
	for _, rv := range reviews {
		switch rv.State {
		case "APPROVED", "CHANGES_REQUESTED", "DISMISSED":
			deciding = append(deciding, rv)
		}
	}
	// GitHub lists reviews oldest first; submission times settle the order
	// when a page boundary or a client reorders them.
	sort.SliceStable(deciding, func(i, j int) bool { return deciding[i].SubmittedAt.Before(deciding[j].SubmittedAt) })
	latest := map[string]github.Review{}
	for _, rv := range deciding {
		latest[strings.ToLower(rv.User)] = rv
	}
	var candidates []github.Review
	for _, key := range slices.Sorted(maps.Keys(latest)) {
		rv := latest[key]
		why := ""
		switch {
		case rv.State == "CHANGES_REQUESTED":
			why = whyChangesRequested
		case rv.State == "DISMISSED":
			why = whyDismissed
		case rv.CommitID != pr.HeadSHA:
			why = whyEarlierCommit(rv.CommitID)
		case strings.EqualFold(rv.User, pr.Author):
			why = whyAuthor
		case isBot(rv.User, rv.UserType):
			why = whyBot
		default:
			candidates = append(candidates, rv)
			continue
		}
		out.notCounted = append(out.notCounted, NotCounted{Reviewer: rv.User, Why: why})
	}
	if len(candidates) == 0 {
		return out, nil
	}
	commits, err := gh.PullRequestCommits(ctx, pr.Number)
	if err != nil {
		return out, fmt.Errorf("list commits of #%d: %w", pr.Number, err)
	}
	pushers := map[string]bool{}
	for _, c := range commits {
		for _, login := range []string{c.Author, c.Committer} {
			if login != "" {
				pushers[strings.ToLower(login)] = true
			}
		}
	}
	tooMany := len(commits) >= github.MaxPullRequestCommits
	for _, rv := range candidates {
		why := ""
		switch {
		case tooMany:
			why = whyTooManyCommits(github.MaxPullRequestCommits)
		case pushers[strings.ToLower(rv.User)]:
			why = whyPusher
		default:
			level, err := gh.Permission(ctx, rv.User)
			if err != nil {
				return out, fmt.Errorf("check the permission of %s: %w", rv.User, err)
			}
			if !level.AtLeast(s.ApproverPermission) {
				why = whyPermission(level.String(), s.ApproverPermission.String())
			}
		}
		if why != "" {
			out.notCounted = append(out.notCounted, NotCounted{Reviewer: rv.User, Why: why})
			continue
		}
		out.counted = append(out.counted, rv.User)
	}
	slices.SortFunc(out.counted, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	return out, nil
}

// isBot: an account of type Bot, or a login GitHub gives Apps.
func isBot(login, typ string) bool {
	return strings.EqualFold(typ, "Bot") || strings.HasSuffix(strings.ToLower(login), "[bot]")
}

// plural is "1 approval" or "n approvals": noun.Count.
func plural(n int, one string) string { return noun.Count(n, one) }
