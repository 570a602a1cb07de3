package review

import (
	"context"
	"fmt"
)

// ApplyMerged applies on merge: a push of commit sha to the default branch.
// It finds the pull request merged by sha (commits/{sha}/pulls) and applies
// its saved plan for the PR's final head SHA, through the same requirements
// as Apply with OnMerge set: the PR must be merged; the permission check is
// skipped (merging already needed write permission, and the pusher is who
// merged); RequireApproval is still checked on the final head SHA and an
// apply without one is refused (fail closed: branch protection may not have
// required it). Absent or stale plans are refused with a PR comment saying
// how to finish (re-plan on the default branch, then apply).
//
// A push that merged no pull request (a direct push) is not applied: the
// outcome's Refused says so, with no error and no API call beyond the
// lookup. Neither is any push when s.Apply does not apply on merge (no API
// call at all).
func ApplyMerged(ctx context.Context, d Deps, s Settings, sha, pusher string) (*ApplyOutcome, error) {
	d, s, err := ready(d, s)
	if err != nil {
		return nil, err
	}
	if r := ApplyModeRefusal(s, TriggerMerge); r != nil {
		return &ApplyOutcome{Refused: r}, nil
	}
	prs, err := d.GitHub.PullRequestsForCommit(ctx, sha)
	if err != nil {
		return nil, fmt.Errorf("find the pull request merged by %s: %w", sha7(sha), err)
	}
	for i := range prs {
		pr := &prs[i]
		if !pr.Merged || pr.State != "closed" {
			continue
		}
		req := ApplyRequest{Settings: s, Number: pr.Number, Commenter: pusher, OnMerge: true, MergeSHA: sha}
		a := &applier{d: d, s: s, req: req, out: &ApplyOutcome{Number: pr.Number}}
		return a.run(ctx, pr)
	}
	return &ApplyOutcome{Refused: refusal(RequireMergedPR, directPushText(sha))}, nil
}
