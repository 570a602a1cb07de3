package review_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/review"
)

const mergeSHA = "ddddddd4444444444444444444444444444444dd"

// merge marks PR number merged by mergeSHA, as GitHub does.
func (f *fixture) merge(number int) {
	f.srv.UpdatePullRequest(repoName, number, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
	f.srv.SetCommitPulls(repoName, mergeSHA, number)
}

// TestApplyMerged: a push to the default branch applies the merged PR's
// saved plan for its final head, or refuses with a comment on the PR.
func TestApplyMerged(t *testing.T) {
	tests := []struct {
		name            string
		setup           func(f *fixture)
		requireApproval bool
		wantRefused     []string // nil: applied
		wantReply       bool     // a comment on PR #1
	}{
		{name: "merged pull request", setup: func(f *fixture) { f.merge(1) }, wantReply: true},
		{
			name: "approved at its final head, approval required", requireApproval: true, wantReply: true,
			setup: func(f *fixture) {
				f.srv.AddReview(repoName, 1, githubtest.Review{User: "bob", State: "APPROVED", CommitID: headA})
				f.merge(1)
			},
		},
		{
			name: "merged without approval, approval required", requireApproval: true, wantReply: true,
			setup: func(f *fixture) {
				f.srv.AddReview(repoName, 1, githubtest.Review{User: "bob", State: "APPROVED", CommitID: oldSHA})
				f.merge(1)
			},
			wantRefused: []string{"merged without the 1 approval of its final head commit `aaaaaaa`", "Re-plan on the default branch"},
		},
		{
			name: "stale plan", wantReply: true,
			setup: func(f *fixture) {
				f.addPR(2, headB)
				f.plan(2, headB)
				if out, err := review.Apply(t.Context(), f.deps, review.ApplyRequest{Settings: f.settings, Number: 2, Commenter: "alice"}); err != nil || !out.Applied {
					f.t.Fatalf("apply #2: %v %+v", err, out)
				}
				f.merge(1)
			},
			wantRefused: []string{"stale plan", "Nothing was applied. To finish: re-plan on the default branch", "then apply it"},
		},
		{
			name: "no plan for the final head", wantReply: true,
			setup: func(f *fixture) {
				f.srv.UpdatePullRequest(repoName, 1, func(pr *githubtest.PullRequest) { pr.HeadSHA = headB })
				f.merge(1)
			},
			wantRefused: []string{"No plan for `bbbbbbb`, the final head of pull request #1, was saved", "re-plan on the default branch"},
		},
		{
			name:        "a direct push",
			wantRefused: []string{"no merged pull request for " + mergeSHA, "a direct push is not applied"},
		},
		{
			name: "a closed, unmerged pull request",
			setup: func(f *fixture) {
				f.srv.UpdatePullRequest(repoName, 1, func(pr *githubtest.PullRequest) { pr.State = "closed" })
				f.srv.SetCommitPulls(repoName, mergeSHA, 1)
			},
			wantRefused: []string{"no merged pull request for"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.settings.RequireApproval = tt.requireApproval
			f.srv.SetPermission(repoName, "alice", "write")
			f.srv.SetPermission(repoName, "bob", "write")
			f.addPR(1, headA)
			planned := f.plan(1, headA)
			if tt.setup != nil {
				tt.setup(f)
			}
			serial, cloud, audits := f.serial(), f.cloud(), len(f.audits())
			before := len(f.replies(1))

			out, err := review.ApplyMerged(t.Context(), f.deps, f.settings, mergeSHA, "merger")
			if err != nil {
				t.Fatalf("ApplyMerged: %v", err)
			}
			replies := f.replies(1)
			if got := len(replies) - before; got != map[bool]int{true: 1}[tt.wantReply] {
				t.Fatalf("%d new comments on the PR, want reply=%v", got, tt.wantReply)
			}
			if tt.wantRefused != nil {
				if out.Applied {
					t.Fatalf("applied, want refused")
				}
				contains(t, "Refused", out.Refused.String(), tt.wantRefused...)
				if tt.wantReply {
					contains(t, "reply", replies[len(replies)-1], tt.wantRefused...)
					contains(t, "reply", replies[len(replies)-1], render.ApplyMarker("", env), "refused")
				}
				if f.serial() != serial || !slices.Equal(f.cloud(), cloud) || len(f.audits()) != audits {
					t.Errorf("a refused apply changed something: serial %d→%d, cloud %v→%v", serial, f.serial(), cloud, f.cloud())
				}
				return
			}
			if !out.Applied || out.Number != 1 || out.HeadSHA != headA {
				t.Fatalf("outcome %+v, want PR #1 applied at its head", out)
			}
			// The first apply creates the state (serial 1), then applies (+1).
			if f.serial() != max(serial, 1)+1 || len(f.cloud()) != 1 {
				t.Errorf("serial %d → %d, cloud %v; want +1 and the Vm", serial, f.serial(), f.cloud())
			}
			contains(t, "result comment", replies[len(replies)-1], "succeeded", planned.Digest)
			recs := f.audits()
			if len(recs) != audits+1 {
				t.Fatalf("%d audit records, want %d", len(recs), audits+1)
			}
			rec := recs[len(recs)-1]
			got := []any{string(rec.Trigger), rec.MergeSHA, rec.RequestedBy, rec.PlanDigest, rec.HeadSHA}
			if diff := cmp.Diff([]any{"merge", mergeSHA, "merger", planned.Digest, headA}, got); diff != "" {
				t.Errorf("audit record (-want +got):\n%s", diff)
			}
			f.noSecret()
		})
	}
}
