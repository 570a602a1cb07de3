package action

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/markdown"
)

// A merge's apply can be cancelled without a word: GitHub keeps one
// pending run per concurrency group and cancels it when a newer run joins
// the group, whatever cancel-in-progress says. The example workflows give
// applies no group they share; for a workflow that does, a push to the
// default branch looks back at the merges before it: a merge whose every
// push run of this workflow was cancelled was never applied (or not to the
// end), and is reported — an error annotation, a line in the summary, a
// comment on its pull request — and the job fails. The walk follows first
// parents from the push's "before" commit and stops at the first commit
// whose run was not cancelled, or that has no run of this workflow.

// maxCancelledLookback bounds how many commits back a push looks.
const maxCancelledLookback = 20

// cancelledMerge is a merge of the default branch whose run was cancelled.
type cancelledMerge struct {
	sha    string
	number int // its pull request
	runURL string
}

// cancelledMerges lists the merges before this push whose runs of this
// workflow were all cancelled, newest first.
func (r *run) cancelledMerges(ctx context.Context) ([]cancelledMerge, error) {
	wf := r.workflowPath()
	if wf == "" {
		return nil, nil
	}
	var out []cancelledMerge
	sha := r.ev.Before
	for range maxCancelledLookback {
		if strings.Trim(sha, "0") == "" {
			break
		}
		runs, err := r.repo.WorkflowRuns(ctx, path.Base(wf), github.RunQuery{Event: "push", Branch: r.defaultBranch(), HeadSHA: sha})
		if errors.Is(err, github.ErrNotFound) {
			break // GitHub does not know the workflow (yet): nothing to tell
		}
		if err != nil {
			return out, err
		}
		url, cancelled := allCancelled(runs, sha)
		if !cancelled {
			break
		}
		prs, err := r.repo.PullRequestsForCommit(ctx, sha)
		if err != nil {
			return out, err
		}
		for _, pr := range prs {
			if pr.Merged && pr.BaseRef == r.defaultBranch() {
				out = append(out, cancelledMerge{sha: sha, number: pr.Number, runURL: url})
				break
			}
		}
		parents, err := r.repo.Parents(ctx, sha)
		if err != nil {
			return out, err
		}
		if len(parents) == 0 {
			break
		}
		sha = parents[0]
	}
	return out, nil
}

// allCancelled reports whether there are runs for sha and every one ended
// cancelled, and the newest one's URL.
func allCancelled(runs []github.WorkflowRun, sha string) (string, bool) {
	url, n := "", 0
	for _, run := range runs {
		if run.HeadSHA != sha {
			continue
		}
		if run.Status != "completed" || run.Conclusion != "cancelled" {
			return "", false
		}
		if n == 0 {
			url = run.HTMLURL
		}
		n++
	}
	return url, n > 0
}

// reportCancelled reports the merges before this push that were not
// applied because their runs were cancelled; code is the exit code so far.
func (r *run) reportCancelled(ctx context.Context, code int) int {
	merges, err := r.cancelledMerges(ctx)
	if err != nil {
		r.a.Warningf("could not tell whether the merges before this push were applied (does the job have actions: read?): %v", err)
	}
	if len(merges) == 0 {
		return code
	}
	var lines []string
	for _, m := range merges {
		msg := cancelledMessage(r.in.Environment, m)
		r.a.Errorf("%s", msg)
		lines = append(lines, "- "+msg)
		if _, err := r.repo.CreateComment(ctx, m.number, cancelledComment(r.in.Environment, m)); err != nil {
			r.a.Warningf("could not comment on #%d that its merge was not applied: %v", m.number, err)
		}
	}
	r.summary += "\n### Merges not applied\n\n" + strings.Join(lines, "\n") + "\n"
	return ExitFail
}

func cancelledMessage(env string, m cancelledMerge) string {
	return fmt.Sprintf("the merge of #%d (%s) was not applied in %s: its workflow run %s was cancelled (GitHub cancels a pending run when a newer one joins its concurrency group). "+
		"Re-plan on the default branch, review the plan, then apply it.", m.number, sha7(m.sha), envName(env), m.runURL)
}

func cancelledComment(env string, m cancelledMerge) string {
	return fmt.Sprintf("**Kyku did not apply this merge** in %s: the workflow run of its push (commit %s), %s, was cancelled before it applied "+
		"(GitHub cancels a pending run when a newer one joins its concurrency group). This pull request's reviewed plan is not in the environment, "+
		"or not all of it.\n\nTo finish: re-plan on the default branch, review the plan, then apply it.\n",
		markdown.Code(envName(env)), markdown.Code(sha7(m.sha)), m.runURL)
}

func sha7(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
