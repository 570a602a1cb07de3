package action

import (
	"context"
	"strings"

	"github.com/kyku/action/internal/policy"
	"github.com/kyku/action/internal/review"
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
		if (wf != "" && f == wf) || strings.HasPrefix(f, policy.Dir+"/") || tfinstall.IsLockFile(f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// workflowRole is what the workflow file is to the Action's rules, as a
// refusal says it.
const workflowRole = "the workflow that runs Kyku: its inputs are the review rules (require-approval, required-approvals, approver-permission, apply, …), " +
	"and this run has the pull request's"

// mergeRules (review.Deps.MergeRules) says where this run's rules, its
// inputs, were read: the workflow file it started from, at the merge's
// own commit (this run's: the push's "after", the merge group's head),
// to be compared with the default branch before the merge (the push's
// "before", the merge group's base).
func (r *run) mergeRules() *review.MergeRules {
	m := &review.MergeRules{DefaultBranch: r.defaultBranch(), At: r.ev.After, Before: r.ev.Before, WithChanges: true, Role: workflowRole}
	if g := r.ev.MergeGroup; g != nil {
		m.At, m.Before = g.HeadSHA, g.BaseSHA
	}
	wf := r.workflowPath()
	switch {
	case strings.Trim(m.Before, "0") == "":
		m.Unknown = "The event names no commit of the default branch from before this merge"
	case wf == "":
		m.Unknown = "GITHUB_WORKFLOW_REF does not name a workflow file of this repository"
	default:
		m.Files = []string{wf}
	}
	return m
}
