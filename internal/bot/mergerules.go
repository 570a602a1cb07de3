package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/review"
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

// mergeRules (review.Deps.MergeRules) says where the rules that judge the
// merge of ev were read: at ev.rulesRef, a merge commit's first parent or
// a squash or rebase merge's own commit (which holds the pull request's
// changes). The settings and the policies are read there; at a first
// parent, so are the providers' lock files.
func mergeRules(ev event) *review.MergeRules {
	return &review.MergeRules{
		DefaultBranch: ev.defaultBranch,
		At:            ev.rulesRef,
		WithChanges:   ev.linear,
		IsRule:        func(f string) bool { return isRuleFile(f) || (!ev.linear && isLockFile(f)) },
	}
}
