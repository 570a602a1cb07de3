package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/markdown"
	"github.com/kyku/action/internal/policy"
	"github.com/kyku/action/internal/tfinstall"
)

// The Action's review rules are its inputs, written in the workflow file
// the run started from (GITHUB_WORKFLOW_REF), and the policies. A pull
// request is never judged by the rules it brings: the policies of a merge
// are read at the push's "before" commit (policies.go), and since a merge's
// push (or a merge queue's commit) runs the workflow file as the pull
// request left it, an apply whose workflow file differs from the default
// branch's before the merge is refused — its inputs are the pull
// request's. The plan comment of a pull request that changes the workflow
// or a policy says so at the top.

// workflowPath is the repository path of the workflow file this run
// started from, from GITHUB_WORKFLOW_REF
// ("<owner>/<repo>/.github/workflows/kyku.yml@refs/heads/main"); "" when
// it is unset or names another repository.
func (r *run) workflowPath() string {
	ref := r.env.Getenv("GITHUB_WORKFLOW_REF")
	p, _, _ := strings.Cut(ref, "@")
	rest, ok := cutPrefixFold(p, r.ghctx.Repository+"/")
	if !ok || !strings.HasPrefix(rest, ".github/workflows/") {
		return ""
	}
	return rest
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

// ruleChanges lists the files holding the Action's review rules that pull
// request number changes: the workflow this run started from, the
// policies, and the providers' lock files (shown apart: which provider
// binaries may run).
func (r *run) ruleChanges(ctx context.Context, number int) ([]string, error) {
	files, err := r.repo.ChangedFiles(ctx, number)
	if err != nil {
		return nil, err
	}
	wf := r.workflowPath()
	var out []string
	for _, f := range files {
		if (wf != "" && f == wf) || strings.HasPrefix(f, policy.Dir+"/") || path.Base(f) == tfinstall.LockFileName {
			out = append(out, f)
		}
	}
	return out, nil
}

// mergeRules (review.Deps.MergeRules) refuses the apply of a merge of a
// pull request into another branch than the default one (its commit may
// reach the default branch later, by a push), and of a merge whose
// workflow file — where this run's inputs, its review rules, come from —
// is not the default branch's as it was before the merge: on a push, the
// "before" commit's; in the merge queue, the group's base commit's.
func (r *run) mergeRules(ctx context.Context, pr *github.PR, mergeSHA string) (string, error) {
	if pr != nil && pr.BaseRef != r.defaultBranch() {
		return fmt.Sprintf("Pull request #%d was merged into %s, not the default branch %s: only a merge into the default branch is applied (any writer can push a branch with rules of its own). "+
			"Re-plan on the default branch, review the plan, then apply it.", pr.Number, markdown.Code(pr.BaseRef), markdown.Code(r.defaultBranch())), nil
	}
	before := r.ev.Before
	if g := r.ev.MergeGroup; g != nil {
		before = g.BaseSHA
	}
	if strings.Trim(before, "0") == "" {
		return "The event names no commit of the default branch from before this merge, so Kyku cannot tell whether the rules this run was started with (its workflow's inputs) are the pull request's own. " +
			"Re-plan on the default branch, review the plan, then apply it.", nil
	}
	wf := r.workflowPath()
	if wf == "" {
		return "GITHUB_WORKFLOW_REF does not name a workflow file of this repository, so Kyku cannot tell whether the rules this run was started with (its workflow's inputs) are the pull request's own. " +
			"Re-plan on the default branch, review the plan, then apply it.", nil
	}
	then, err := r.fileAt(ctx, wf, before)
	if err != nil {
		return "", err
	}
	now, err := r.fileAt(ctx, wf, mergeSHA)
	if err != nil {
		return "", err
	}
	if now == nil {
		return "Kyku cannot read " + markdown.Code(wf) + " at " + markdown.Code(sha7(mergeSHA)) + ", the workflow this run started from, so it cannot tell whether its inputs (the review rules) are the pull request's own. " +
			"Re-plan on the default branch, review the plan, then apply it.", nil
	}
	if then != nil && bytes.Equal(then, now) {
		return "", nil
	}
	return "This merge changes " + markdown.Code(wf) + ", the workflow that runs Kyku: its inputs are the review rules (require-approval, required-approvals, approver-permission, apply, …), " +
		"and this run has the pull request's. A pull request is never judged by the rules it brings; its rules apply from the next pull request. " +
		"To apply this one, re-plan on the default branch (the workflow there is now this one), review the plan, then apply it.", nil
}

// fileAt is path at ref; nil when it is not there.
func (r *run) fileAt(ctx context.Context, path, ref string) ([]byte, error) {
	data, err := r.repo.FileContent(ctx, path, ref)
	if errors.Is(err, github.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", path, sha7(ref), err)
	}
	return data, nil
}

func sha7(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
