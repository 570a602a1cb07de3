package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/markdown"
	"github.com/kyku/action/internal/policy"
)

// A merge applies only into the default branch, judged by the rules the
// default branch had before the merge — never rules the pull request
// brought, nor those of a branch a writer pushed:
//
//   - a merge commit (two parents): its first parent is the default branch
//     before the merge; the settings and policies are read there;
//   - a squash or a rebase merge (one parent; the two cannot be told apart
//     from the commit, and a rebase's parent is the pull request's own
//     commit): the merge commit's tree is the default branch before the
//     merge plus the pull request's changes, so a rule file the pull
//     request does not change holds there what it held before. The
//     settings and policies are read at the merge commit itself, and a
//     pull request that changes one of them is refused. (A provider lock
//     file, the other rule file, is not read at the merge commit.)

// maxListedFiles is how many changed files GitHub lists for a pull request
// at most: a longer list may hide a rule file.
const maxListedFiles = 3000

// mergedElsewhere says why a merge into base (the payload's
// pull_request.base) is not applied, "" when base is ev's default branch.
// Any writer can push a branch with rules of its own and merge into it.
func mergedElsewhere(ev event, base prBase) string {
	const only = ": only a merge into the default branch is applied"
	switch {
	case base.Ref == "":
		return "pull_request merged into a base branch the payload does not name" + only
	case base.SHA == "":
		// What is sensitive for a squash or rebase merge is read there too.
		return "pull_request merged from a base commit the payload does not name" + only
	case base.Repo == nil || base.Repo.FullName == "":
		return "pull_request merged into a base repository the payload does not name" + only
	case !strings.EqualFold(base.Repo.FullName, ev.fullName()):
		return "pull_request merged into " + base.Repo.FullName + ":" + base.Ref + ", not this repository's default branch " + ev.defaultBranch + only
	case base.Ref != ev.defaultBranch:
		return "pull_request merged into " + base.Ref + ", not the default branch " + ev.defaultBranch + only
	}
	return ""
}

// setMergeRefs reads the parents of ev's merge commit and sets where the
// rules that judge the merge are read (ev.rulesRef), its first parent
// (ev.parentRef) and whether it has no other (ev.linear).
func setMergeRefs(ctx context.Context, repo *github.Repo, ev *event) error {
	parents, err := repo.Parents(ctx, ev.mergeSHA)
	if err != nil {
		return err
	}
	if len(parents) == 0 || parents[0] == "" {
		return fmt.Errorf("merge commit %s has no parent", ev.mergeSHA)
	}
	ev.parentRef, ev.linear = parents[0], len(parents) == 1
	ev.rulesRef = ev.parentRef
	if ev.linear {
		ev.rulesRef = ev.mergeSHA
	}
	return nil
}

// mergeRefusal (review.Deps.MergeRules) says why the merge of pr is not
// applied, "" when it is: pr, as the API gives it, was merged into the
// default branch, and the rules read at ev.rulesRef are not ones it
// brought.
func mergeRefusal(ctx context.Context, repo *github.Repo, ev event, pr *github.PR) (string, error) {
	n := "Pull request #" + strconv.Itoa(pr.Number)
	switch {
	case pr.BaseRef != ev.defaultBranch:
		into := markdown.Code(pr.BaseRef)
		if pr.BaseRef == "" {
			into = "a branch GitHub does not name"
		}
		return n + " was merged into " + into + ", not the default branch " + markdown.Code(ev.defaultBranch) +
			": only a merge into the default branch is applied (any writer can push a branch with rules of its own).", nil
	case ev.rulesRef == "":
		return "Kyku does not know the commit the merge was made on, so it cannot read the rules from before it.", nil
	}
	files, err := repo.ChangedFiles(ctx, pr.Number)
	if err != nil {
		return "", fmt.Errorf("list the files of #%d: %w", pr.Number, err)
	}
	if ev.linear {
		return linearRefusal(pr.Number, files), nil
	}
	return ownRules(ctx, repo, ev.parentRef, pr, ruleFiles(files))
}

// linearRefusal refuses a squash or rebase merge of pull request number
// whose changed files hold a file the rules are read from at the merge
// commit, or may: its rules cannot be read from before it.
func linearRefusal(number int, files []string) string {
	num := strconv.Itoa(number)
	const finish = " To apply it, re-plan on the default branch, review the plan, then apply it; next time, " +
		"merge with a merge commit, or land rule changes in a pull request of their own."
	const why = " was merged without a merge commit (a squash or a rebase merge): Kyku cannot tell which rules judged it, " +
		"since a rebase merge's parent is the pull request's own commit, whose rules may be the pull request's."
	if len(files) >= maxListedFiles {
		return "GitHub lists at most " + strconv.Itoa(maxListedFiles) + " files of a pull request, so Kyku cannot tell whether pull request #" + num +
			" changes a rule file, and it" + why + finish
	}
	for _, f := range files {
		if f == settings.Path || strings.HasPrefix(f, policy.Dir+"/") {
			return "Pull request #" + num + " changes " + markdown.Code(f) + " and" + why + finish
		}
	}
	return ""
}

// ownRules says why the rules at ref would be pr's own ("" when they are
// not): a rule file pr changes (one of rules) that already holds, at ref,
// exactly what it holds at pr's head.
func ownRules(ctx context.Context, repo *github.Repo, ref string, pr *github.PR, rules []string) (string, error) {
	for _, f := range rules {
		at, err := repo.FileContent(ctx, f, ref)
		goneAt := errors.Is(err, github.ErrNotFound)
		if err != nil && !goneAt {
			return "", err
		}
		head, err := repo.FileContent(ctx, f, pr.HeadSHA)
		goneHead := errors.Is(err, github.ErrNotFound)
		if err != nil && !goneHead {
			return "", err
		}
		if goneAt == goneHead && bytes.Equal(at, head) {
			return "The default branch before this merge (commit " + markdown.Code(shortSHA(ref)) + ", the merge commit's first parent) already holds this pull request's " +
				markdown.Code(f) + ", so the rules there are the pull request's own: a pull request is never judged by the rules it brings. " +
				"To finish this one, re-plan on the default branch, review the plan, then apply it.", nil
		}
	}
	return "", nil
}
