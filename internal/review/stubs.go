package review

// This file holds the use-case entry points' signatures until they are
// implemented (plan.go, apply.go, comment.go, drift.go replace it).

import (
	"context"
	"errors"
)

var errTODO = errors.New("review: not implemented yet")

// Plan plans a PR's head: saved plan in the backend at SavedPlanKey, the
// sticky comment (or a new one, or none, per CommentMode), older sticky
// comments marked outdated, and the redacted plan.json.
func Plan(ctx context.Context, d Deps, req PlanRequest) (*PlanOutcome, error) { return nil, errTODO }

// Apply checks the apply requirements and applies the PR's saved plan for
// its current head SHA, writes the audit record and comments the result.
// A failed requirement is not an error: the outcome says which (Refused)
// and the PR gets a reply.
func Apply(ctx context.Context, d Deps, req ApplyRequest) (*ApplyOutcome, error) { return nil, errTODO }

// ApplyMerged finds the PR merged by commit sha (commits/{sha}/pulls) and
// applies its saved plan for the PR's final head SHA, refusing when absent
// or stale (saying how to re-plan).
func ApplyMerged(ctx context.Context, d Deps, s Settings, sha, pusher string) (*ApplyOutcome, error) {
	return nil, errTODO
}

// Comment handles a `/kyku` comment: ignores bots, non-PR issues, edits and
// comments for another environment or project; reacts; runs plan, apply or
// help; and replies.
func Comment(ctx context.Context, d Deps, s Settings, ev CommentEvent) (*CommentOutcome, error) {
	return nil, errTODO
}

// Drift refreshes one environment and keeps ONE open issue labelled
// DriftLabel with a table of what drifted, updated in place; closes it with
// a comment when drift is gone.
func Drift(ctx context.Context, d Deps, req DriftRequest) (*DriftOutcome, error) { return nil, errTODO }
