package review

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// MergeGroup is a merge_group checks_requested event, reduced to what the
// rules need.
type MergeGroup struct {
	HeadSHA string // the queue's commit: the base branch with the pull request merged
	HeadRef string // refs/heads/gh-readonly-queue/<base>/pr-<number>-<base sha>
	BaseRef string // refs/heads/<base>
	Sender  string // who queued it (or GitHub)
}

// queueRefRE is the branch GitHub makes for a merge group.
var queueRefRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:refs/heads/)?gh-readonly-queue/(.+)/pr-([1-9][0-9]{0,9})-([0-9a-f]{40})$`)
})

// QueuedPR is the number of the pull request a merge group's branch is
// for, and the base branch it names.
func QueuedPR(headRef string) (number int, base string, err error) {
	m := queueRefRE().FindStringSubmatch(headRef)
	if m == nil {
		return 0, "", errors.New(queueBranchText(headRef))
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		return 0, "", fmt.Errorf("merge group branch %s: %w", code(headRef), err)
	}
	return n, m[1], nil
}

// ApplyMergeGroup is the merge queue's check (Settings.Apply must be
// ApplyInMergeQueue, or nothing is applied: the outcome says why): it
// finds the pull request the group is for (from its branch name), and
// applies the queue's commit through the requirements of Apply, with
// these differences:
//
//   - the pull request must be open (it is merged once the check passes)
//     and based on the branch the group merges into;
//   - no commenter permission is checked (queueing needs write access);
//   - the configuration planned again is the one at the queue's commit
//     (MergeGroup.HeadSHA), and the fresh plan must be the reviewed one:
//     the same ChangesDigest as the saved plan of the pull request's head
//     and Kyku's plan comment for it — so the queue's commit must hold
//     exactly the configuration reviewed;
//   - the audit record's trigger is "merge-queue", its mergeSha the
//     queue's commit.
//
// A refusal is not an error; the front door fails the check on it (and
// on a failed apply), so GitHub removes the pull request from the queue
// and the base branch never holds a merge that was not applied.
func ApplyMergeGroup(ctx context.Context, d Deps, s Settings, g MergeGroup) (*ApplyOutcome, error) {
	d, s, err := ready(d, s)
	if err != nil {
		return nil, err
	}
	if r := ApplyModeRefusal(s, TriggerMergeQueue); r != nil {
		return &ApplyOutcome{Refused: r}, nil
	}
	number, base, err := QueuedPR(g.HeadRef)
	if err != nil {
		return &ApplyOutcome{Refused: refusal(RequireMergeGroup, err.Error())}, nil
	}
	if want := strings.TrimPrefix(g.BaseRef, "refs/heads/"); want != base {
		return &ApplyOutcome{Number: number, Refused: refusal(RequireMergeGroup, queueBaseText(g.HeadRef, want))}, nil
	}
	req := ApplyRequest{Settings: s, Number: number, Commenter: g.Sender, Queue: true, MergeSHA: g.HeadSHA}
	a := &applier{d: d, s: s, req: req, out: &ApplyOutcome{Number: number}}
	pr, err := d.GitHub.PullRequest(ctx, number)
	if err != nil {
		return a.fail(ctx, fmt.Errorf("get pull request #%d: %w", number, err))
	}
	if pr.BaseRef != "" && pr.BaseRef != base {
		return a.refuse(ctx, refusal(RequireMergeGroup, queuePRBaseText(number, pr.BaseRef, base)))
	}
	return a.run(ctx, pr)
}
