package review_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/permission"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/review"
)

const oldSHA = "ccccccc3333333333333333333333333333333cc"

// posted is when the comments of the tests that give one were posted.
var posted = time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)

// TestApplyByComment: `/kyku apply` on PR #1 (planned at headA), with the
// requirements met or not. A refusal names the requirement and how to fix
// it, reacts -1 and changes nothing; an apply changes the state and the
// cloud, writes the audit record, reacts rocket and comments the result.
func TestApplyByComment(t *testing.T) {
	tests := []struct {
		name            string
		setup           func(f *fixture)
		commenter       string
		requireApproval bool
		allowForks      bool // allow-fork-prs
		permission      permission.Level
		seenHead        string    // the head when the comment arrived ("": not pinned)
		commentedAt     time.Time // the comment's created_at (zero: not given)
		wantRefused     []string  // nil: applied
	}{
		{
			name: "read-only commenter", commenter: "rita",
			wantRefused: []string{"`rita` has `read` permission", "needs at least `write`", "`/kyku apply -e prod`"},
		},
		{
			name: "commenter without any role", commenter: "stranger",
			wantRefused: []string{"`stranger` has `none` permission"},
		},
		{
			name: "writer below a stricter apply permission", commenter: "alice", permission: "maintain",
			wantRefused: []string{"`alice` has `write` permission", "needs at least `maintain`"},
		},
		{
			name: "approval of an older commit", commenter: "alice", requireApproval: true,
			setup: func(f *fixture) {
				f.srv.AddReview(repoName, 1, githubtest.Review{User: "bob", State: "APPROVED", CommitID: oldSHA})
			},
			wantRefused: []string{"needs 1 approval of its current head commit `aaaaaaa` and has 0", "Counted: none.", "`bob` (approved an earlier commit `ccccccc`)"},
		},
		{
			name: "approved by the author only", commenter: "alice", requireApproval: true,
			setup: func(f *fixture) {
				f.srv.AddReview(repoName, 1, githubtest.Review{User: "author", State: "APPROVED", CommitID: headA})
			},
			wantRefused: []string{"needs 1 approval", "`author` (is the author)"},
		},
		{
			name: "approval withdrawn by a later change request", commenter: "alice", requireApproval: true,
			setup: func(f *fixture) {
				f.srv.AddReview(repoName, 1, githubtest.Review{User: "bob", State: "APPROVED", CommitID: headA})
				f.srv.AddReview(repoName, 1, githubtest.Review{User: "bob", State: "CHANGES_REQUESTED", CommitID: headA})
			},
			wantRefused: []string{"needs 1 approval", "`bob` (requested changes)"},
		},
		{
			name: "no saved plan for the current head", commenter: "alice",
			setup: func(f *fixture) {
				f.srv.UpdatePullRequest(repoName, 1, func(pr *githubtest.PullRequest) { pr.HeadSHA = headB })
			},
			wantRefused: []string{"No plan for `bbbbbbb`", "push or comment `/kyku plan -e prod`"},
		},
		{
			name: "stale plan", commenter: "alice",
			setup: func(f *fixture) {
				// PR #2 is planned after #1 and applied first: #1's plan
				// was made against a state serial that moved on.
				f.addPR(2, headB)
				f.plan(2, headB)
				out, err := review.Apply(t.Context(), f.deps, review.ApplyRequest{Settings: f.settings, Number: 2, Commenter: "alice"})
				if err != nil || !out.Applied {
					f.t.Fatalf("apply #2: %v %+v", err, out)
				}
			},
			wantRefused: []string{"stale plan", "planned before any state existed, and a state has been written since", "Comment `/kyku plan -e prod` to re-plan"},
		},
		{
			name: "closed pull request", commenter: "alice",
			setup: func(f *fixture) {
				f.srv.UpdatePullRequest(repoName, 1, func(pr *githubtest.PullRequest) { pr.State = "closed" })
			},
			wantRefused: []string{"Pull request #1 is closed: reopen it"},
		},
		{
			name: "merged pull request", commenter: "alice",
			setup: func(f *fixture) {
				f.srv.UpdatePullRequest(repoName, 1, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
			},
			wantRefused: []string{"Pull request #1 is already merged", "Re-plan on the default branch, then apply"},
		},
		{
			name: "pull request from a fork", commenter: "alice",
			setup: func(f *fixture) {
				f.srv.UpdatePullRequest(repoName, 1, func(pr *githubtest.PullRequest) { pr.HeadRepo = "mallory/infra" })
			},
			wantRefused: []string{"comes from a fork (`mallory/infra`)", "does not plan or apply pull requests from forks"},
		},
		{
			// Forks allowed: a fork's branch fast-forwarded to a commit
			// GitHub held before leaves only the fork's activity to say
			// so; when GitHub does not show it, nothing is applied.
			name: "pull request from a fork allowed, its activity not shown", commenter: "alice", allowForks: true, seenHead: headA, commentedAt: posted,
			setup: func(f *fixture) {
				f.srv.UpdatePullRequest(repoName, 1, func(pr *githubtest.PullRequest) { pr.HeadRepo = "mallory/infra" })
			},
			wantRefused: []string{"comes from a fork (`mallory/infra`) whose activity GitHub does not show this token", "was pushed to since the `/kyku apply` comment"},
		},
		{
			name: "pull request from a fork allowed, its activity shown", commenter: "alice", allowForks: true, seenHead: headA, commentedAt: posted,
			setup: func(f *fixture) {
				f.srv.AddRepo("mallory/infra", "main")
				f.srv.AddActivity("mallory/infra", githubtest.Activity{Ref: "refs/heads/change-aaaa", Type: "push", After: headA, Actor: "mallory", At: posted.Add(-time.Minute)})
				f.srv.UpdatePullRequest(repoName, 1, func(pr *githubtest.PullRequest) { pr.HeadRepo = "mallory/infra" })
			},
		},
		{
			name: "pull request from a fork allowed, pushed to in the comment's second", commenter: "alice", allowForks: true, seenHead: headA, commentedAt: posted,
			setup: func(f *fixture) {
				f.srv.AddActivity("mallory/infra", githubtest.Activity{Ref: "refs/heads/change-aaaa", Type: "push", After: headA, Actor: "mallory", At: posted})
				f.srv.UpdatePullRequest(repoName, 1, func(pr *githubtest.PullRequest) { pr.HeadRepo = "mallory/infra" })
			},
			wantRefused: []string{"Pull request #1's branch `change-aaaa` was pushed to at 2026-12-07 12:00:00 UTC, not before the `/kyku apply` comment"},
		},
		{
			name: "head moved after the comment, the new head planned", commenter: "alice", seenHead: headA,
			setup: func(f *fixture) {
				f.srv.UpdatePullRequest(repoName, 1, func(pr *githubtest.PullRequest) { pr.HeadSHA = headB })
				f.plan(1, headB)
			},
			wantRefused: []string{"Pull request #1's head moved to `bbbbbbb` after the `/kyku apply` comment, which was posted on `aaaaaaa`", "comment `/kyku apply -e prod` again"},
		},
		{
			// The head read when the comment arrived is already the
			// pushed one (the push was delivered first, or came while
			// the comment waited): GitHub's clock still tells.
			name: "head reached GitHub after the comment", commenter: "alice", seenHead: headA, commentedAt: posted,
			setup: func(f *fixture) {
				f.srv.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: headA, AppSlug: "github-actions", Created: posted.Add(3 * time.Second)})
				f.srv.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: headA, AppSlug: "kyku", Created: posted.Add(2 * time.Second)})
			},
			wantRefused: []string{"Pull request #1's head `aaaaaaa` reached GitHub at 2026-12-07 12:00:02 UTC, not before the `/kyku apply` comment (2026-12-07 12:00:00 UTC)", "comment `/kyku apply -e prod` again"},
		},
		{
			name: "head reached GitHub before the comment", commenter: "alice", seenHead: headA, commentedAt: posted,
			setup: func(f *fixture) {
				f.srv.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: headA, AppSlug: "kyku", Created: posted.Add(-time.Second)})
				f.srv.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: headB, AppSlug: "kyku", Created: posted.Add(time.Hour)}) // another commit's
			},
		},
		{
			// GitHub's times are whole seconds: a head that reached it in
			// the comment's own second cannot be told from one after it,
			// nor can its plan have been made and seen by then.
			name: "head reached GitHub in the comment's own second", commenter: "alice", seenHead: headA, commentedAt: posted,
			setup: func(f *fixture) {
				f.srv.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: headA, AppSlug: "kyku", Created: posted})
			},
			wantRefused: []string{"Pull request #1's head `aaaaaaa` reached GitHub at 2026-12-07 12:00:00 UTC, not before the `/kyku apply` comment (2026-12-07 12:00:00 UTC)"},
		},
		{
			name: "head reached GitHub the second before the comment", commenter: "alice", seenHead: headA, commentedAt: posted,
			setup: func(f *fixture) {
				f.srv.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: headA, AppSlug: "kyku", Created: posted.Add(-time.Second)})
			},
		},
		{
			name: "head branch force-pushed in the comment's own second", commenter: "alice", seenHead: headA, commentedAt: posted,
			setup: func(f *fixture) {
				f.srv.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: headA, AppSlug: "kyku", Created: posted.Add(-time.Hour)})
				f.srv.AddIssueEvent(repoName, 1, githubtest.IssueEvent{Event: "head_ref_force_pushed", Actor: "author", Created: posted})
			},
			wantRefused: []string{"Pull request #1's branch was force-pushed at 2026-12-07 12:00:00 UTC, not before the `/kyku apply` comment (2026-12-07 12:00:00 UTC), to `aaaaaaa`"},
		},
		{
			name: "head branch pushed to in the comment's own second", commenter: "alice", seenHead: headA, commentedAt: posted,
			setup: func(f *fixture) {
				f.srv.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: headA, AppSlug: "kyku", Created: posted.Add(-time.Hour)})
				f.srv.AddActivity(repoName, githubtest.Activity{Ref: "refs/heads/change-aaaa", Type: "push", After: headA, Actor: "author", At: posted})
			},
			wantRefused: []string{"Pull request #1's branch `change-aaaa` was pushed to at 2026-12-07 12:00:00 UTC, not before the `/kyku apply` comment (2026-12-07 12:00:00 UTC); its head is `aaaaaaa`"},
		},
		{name: "GitHub cannot tell when the head arrived: no check suite", commenter: "alice", seenHead: headA, commentedAt: posted},
		{
			// headA was the head before (its suites are old), then headB,
			// then headA again by a force-push after the comment, read
			// as the head when the comment was handled.
			name: "head branch force-pushed after the comment", commenter: "alice", seenHead: headA, commentedAt: posted,
			setup: func(f *fixture) {
				f.srv.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: headA, AppSlug: "kyku", Created: posted.Add(-time.Hour)})
				f.srv.AddIssueEvent(repoName, 1, githubtest.IssueEvent{Event: "head_ref_force_pushed", Actor: "author", Created: posted.Add(-time.Minute)})
				f.srv.AddIssueEvent(repoName, 1, githubtest.IssueEvent{Event: "head_ref_force_pushed", Actor: "author", Created: posted.Add(7 * time.Second)})
			},
			wantRefused: []string{"Pull request #1's branch was force-pushed at 2026-12-07 12:00:07 UTC, not before the `/kyku apply` comment (2026-12-07 12:00:00 UTC), to `aaaaaaa`", "comment `/kyku apply -e prod` again"},
		},
		{
			// headA was on GitHub long before (pushed to another branch
			// first): its suites are old and no force-push was needed to
			// make it the head, only a push to the branch after the
			// comment, which the repository's activity records.
			name: "head branch pushed to after the comment", commenter: "alice", seenHead: headA, commentedAt: posted,
			setup: func(f *fixture) {
				f.srv.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: headA, AppSlug: "kyku", Created: posted.Add(-time.Hour)})
				f.srv.AddActivity(repoName, githubtest.Activity{Ref: "refs/heads/change-aaaa", Type: "push", After: headA, Actor: "author", At: posted.Add(9 * time.Second)})
				f.srv.AddActivity(repoName, githubtest.Activity{Ref: "refs/heads/main", Type: "push", Actor: "author", At: posted.Add(time.Hour)})
			},
			wantRefused: []string{"Pull request #1's branch `change-aaaa` was pushed to at 2026-12-07 12:00:09 UTC, not before the `/kyku apply` comment (2026-12-07 12:00:00 UTC); its head is `aaaaaaa`", "comment `/kyku apply -e prod` again"},
		},
		{
			name: "head branch pushed to before the comment, another branch after", commenter: "alice", seenHead: headA, commentedAt: posted,
			setup: func(f *fixture) {
				f.srv.AddActivity(repoName, githubtest.Activity{Ref: "refs/heads/change-aaaa", Type: "push", After: headA, Actor: "author", At: posted.Add(-time.Second)})
				f.srv.AddActivity(repoName, githubtest.Activity{Ref: "refs/heads/change-bbbb", Type: "push", Actor: "author", At: posted.Add(time.Minute)})
			},
		},
		{
			name: "head branch force-pushed before the comment, the last in the second before it", commenter: "alice", seenHead: headA, commentedAt: posted,
			setup: func(f *fixture) {
				f.srv.AddIssueEvent(repoName, 1, githubtest.IssueEvent{Event: "head_ref_force_pushed", Actor: "author", Created: posted.Add(-time.Minute)})
				f.srv.AddIssueEvent(repoName, 1, githubtest.IssueEvent{Event: "head_ref_force_pushed", Actor: "author", Created: posted.Add(-time.Second)})
				f.srv.AddIssueEvent(repoName, 1, githubtest.IssueEvent{Event: "labeled", Actor: "author", Created: posted.Add(time.Hour)})
			},
		},
		{
			name: "GitHub cannot tell when the head arrived: no checks: read", commenter: "alice", seenHead: headA, commentedAt: posted,
			setup: func(f *fixture) {
				f.srv.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: headA, AppSlug: "kyku", Created: posted.Add(time.Hour)})
				f.srv.DenyCheckReads(githubtest.TokenUser)
			},
		},
		{name: "writer, on the head seen", commenter: "alice", seenHead: headA},
		{name: "writer", commenter: "alice"},
		{name: "admin", commenter: "root"},
		{
			name: "writer on a pull request approved at its head", commenter: "alice", requireApproval: true,
			setup: func(f *fixture) {
				f.srv.AddReview(repoName, 1, githubtest.Review{User: "bob", State: "APPROVED", CommitID: oldSHA})
				f.srv.AddReview(repoName, 1, githubtest.Review{User: "carol", State: "APPROVED", CommitID: headA})
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.settings.RequireApproval = tt.requireApproval
			f.settings.AllowForkPRs = tt.allowForks
			f.settings.ApplyPermission = tt.permission
			for user, role := range map[string]string{"alice": "write", "rita": "read", "root": "admin", "author": "write", "bob": "write", "carol": "write"} {
				f.srv.SetPermission(repoName, user, role)
			}
			f.addPR(1, headA)
			planned := f.plan(1, headA)
			if tt.setup != nil {
				tt.setup(f)
			}
			serial, cloud, audits := f.serial(), f.cloud(), len(f.audits())
			ev := f.comment(1, tt.commenter, "/kyku apply")
			ev.SeenHead, ev.CommentedAt = tt.seenHead, tt.commentedAt
			before := len(f.replies(1))

			out, err := review.Comment(t.Context(), f.deps, f.settings, ev)
			if err != nil {
				t.Fatalf("Comment: %v", err)
			}
			if out.Ignored != "" || out.Apply == nil {
				t.Fatalf("outcome %+v, want an apply outcome", out)
			}
			replies := f.replies(1)
			if len(replies) != before+1 {
				t.Fatalf("%d new bot comments, want 1 reply", len(replies)-before)
			}
			reply := replies[len(replies)-1]
			if out.Apply.CommentURL == "" {
				t.Errorf("no CommentURL for the reply")
			}

			if tt.wantRefused != nil {
				if out.Apply.Applied {
					t.Fatalf("applied, want refused")
				}
				contains(t, "Refused", out.Apply.Refused.String(), tt.wantRefused...)
				contains(t, "reply", reply, tt.wantRefused...)
				contains(t, "reply", reply, render.ApplyMarker("", env), "Kyku apply for `prod` refused", "Nothing was applied.")
				if diff := cmp.Diff([]string{"eyes", "-1"}, f.reactions(1, ev.CommentID)); diff != "" {
					t.Errorf("reactions (-want +got):\n%s", diff)
				}
				if f.serial() != serial || !slices.Equal(f.cloud(), cloud) || len(f.audits()) != audits {
					t.Errorf("a refused apply changed something: serial %d→%d, cloud %v→%v, audit records %d→%d",
						serial, f.serial(), cloud, f.cloud(), audits, len(f.audits()))
				}
				f.noSecret()
				return
			}

			if !out.Apply.Applied || out.Apply.Refused != nil {
				t.Fatalf("outcome %+v, want applied", out.Apply)
			}
			if res := out.Apply.Result; res == nil || res.Err() != nil || len(res.Succeeded) != 1 {
				t.Fatalf("result %+v", res)
			}
			// The first apply creates the state (serial 1), then applies (+1).
			if f.serial() != max(serial, 1)+1 {
				t.Errorf("state serial %d → %d, want +1", serial, f.serial())
			}
			if got := f.cloud(); len(got) != 1 || !strings.HasPrefix(got[0], "Vm/") {
				t.Errorf("cloud %v, want the one Vm", got)
			}
			if diff := cmp.Diff([]string{"eyes", "rocket"}, f.reactions(1, ev.CommentID)); diff != "" {
				t.Errorf("reactions (-want +got):\n%s", diff)
			}
			if out.Apply.Digest != planned.Digest {
				t.Errorf("applied digest %s, planned %s", out.Apply.Digest, planned.Digest)
			}
			contains(t, "result comment", reply, render.ApplyMarker("", env), "succeeded", "1 succeeded, 0 failed",
				planned.Digest, "State serial 1 → 2", out.Apply.Result.BackupKey)

			recs := f.audits()
			if len(recs) != audits+1 {
				t.Fatalf("%d audit records, want %d", len(recs), audits+1)
			}
			rec := recs[len(recs)-1]
			wantApprovers := []string{}
			if tt.requireApproval {
				wantApprovers = []string{"carol"}
			}
			want := review.AuditRecord{
				PR: 1, Environment: env, RequestedBy: tt.commenter, ApprovedBy: wantApprovers, Trigger: "comment",
				HeadSHA: headA, PlanDigest: planned.Digest, SerialBefore: 1, SerialAfter: 2,
				BackupKey: out.Apply.Result.BackupKey, RunURL: runURL, Succeeded: 1,
			}
			rec.StartedAt, rec.FinishedAt = rec.StartedAt.UTC(), rec.FinishedAt.UTC()
			if rec.StartedAt.IsZero() || rec.FinishedAt.Before(rec.StartedAt) {
				t.Errorf("audit times %s → %s", rec.StartedAt, rec.FinishedAt)
			}
			want.StartedAt, want.FinishedAt = rec.StartedAt, rec.FinishedAt
			if diff := cmp.Diff(want, rec); diff != "" {
				t.Errorf("audit record (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(out.Apply.AuditKey, "runs/prod/") || !strings.HasSuffix(out.Apply.AuditKey, "-pr1.json") {
				t.Errorf("audit key %q", out.Apply.AuditKey)
			}
			f.noSecret()
		})
	}
}

// TestApplyFailureIsRecorded: a change that fails is still applied as far
// as it goes, audited and commented with how to finish; the reaction says so.
func TestApplyFailureIsRecorded(t *testing.T) {
	f := newFixture(t)
	f.srv.SetPermission(repoName, "alice", "write")
	f.addPR(1, headA)
	f.plan(1, headA)
	// Every create of the sim fails from now on.
	f.deps.Open = f.openWith(map[string]string{"fail": "create:*:*"})
	ev := f.comment(1, "alice", "/kyku apply -e prod")
	out, err := review.Comment(t.Context(), f.deps, f.settings, ev)
	if err != nil {
		t.Fatalf("Comment: %v", err)
	}
	a := out.Apply
	if !a.Applied || a.Result == nil || a.Result.Err() == nil {
		t.Fatalf("outcome %+v, want an applied, failed result", a)
	}
	if len(f.audits()) != 1 || f.audits()[0].Failed != 1 {
		t.Errorf("audit records %+v, want one with the failure", f.audits())
	}
	replies := f.replies(1)
	contains(t, "result comment", replies[len(replies)-1], "failed", "How to finish", "Re-plan on the default branch")
	if diff := cmp.Diff([]string{"eyes", "confused"}, f.reactions(1, ev.CommentID)); diff != "" {
		t.Errorf("reactions (-want +got):\n%s", diff)
	}
	f.noSecret()
}

// TestApplyCommentMasksSensitiveOutputs: the apply's result comment lists
// the outputs, and one holding a sensitive variable's value is
// "(sensitive)" there, as in kyku output: every reader of the pull request
// reads that comment.
func TestApplyCommentMasksSensitiveOutputs(t *testing.T) {
	const cfg = `
variables:
  dbPass: { type: string, sensitive: true, default: s3cr3t-value }
resources:
  web:
    type: Vm
    properties: { image: debian-12 }
outputs:
  ip: ${web.publicIp}
  dsn: "postgres://app:${var.dbPass}@db"
`
	f := newFixture(t)
	f.sources[headA], f.trusted = cfg, cfg
	f.srv.SetPermission(repoName, "alice", "write")
	f.addPR(1, headA)
	f.plan(1, headA)
	out, err := review.Comment(t.Context(), f.deps, f.settings, f.comment(1, "alice", "/kyku apply"))
	if err != nil || out.Apply == nil || !out.Apply.Applied {
		t.Fatalf("apply: %v %+v", err, out)
	}
	replies := f.replies(1)
	reply := replies[len(replies)-1]
	contains(t, "result comment", reply, "#### Outputs", "| `dsn` | `(sensitive)` |", "| `ip` | `")
	f.noSecret()
}

// arrivalUnknown is GitHub whose answer to one of the checks of when the
// head came (failing: "suites", "activity" or "events") is a server error
// past the retries.
type arrivalUnknown struct {
	review.GitHub
	failing string
}

func (a arrivalUnknown) HeadArrived(ctx context.Context, sha string) (time.Time, error) {
	if a.failing != "suites" {
		return a.GitHub.HeadArrived(ctx, sha)
	}
	return time.Time{}, errors.New("list the check suites: 502 Bad Gateway after 4 attempts")
}

func (a arrivalUnknown) BranchPushedAfter(ctx context.Context, repo, branch string, since time.Time) (time.Time, bool, error) {
	if a.failing != "activity" {
		return a.GitHub.BranchPushedAfter(ctx, repo, branch, since)
	}
	return time.Time{}, false, errors.New("list the activity: 502 Bad Gateway after 4 attempts")
}

func (a arrivalUnknown) ForcePushedAfter(ctx context.Context, number int, since time.Time) (time.Time, error) {
	if a.failing != "events" {
		return a.GitHub.ForcePushedAfter(ctx, number, since)
	}
	return time.Time{}, errors.New("list the events of #1: 502 Bad Gateway after 4 attempts")
}

// TestApplyByCommentFailsClosedWhenArrivalUnchecked: when GitHub fails a
// check of when the head came (an error, not "cannot tell"), nothing is
// applied and the reply says the apply failed with the error.
func TestApplyByCommentFailsClosedWhenArrivalUnchecked(t *testing.T) {
	for _, tc := range []struct{ failing, want string }{
		{"suites", "check when the head of #1 reached GitHub"},
		{"activity", "check whether the branch of #1 was pushed since the comment"},
		{"events", "check whether the head of #1 was force-pushed since the comment"},
	} {
		t.Run(tc.failing, func(t *testing.T) { failsClosedWhenArrivalUnchecked(t, tc.failing, tc.want) })
	}
}

func failsClosedWhenArrivalUnchecked(t *testing.T, failing, want string) {
	f := newFixture(t)
	f.srv.SetPermission(repoName, "alice", "write")
	f.addPR(1, headA)
	f.plan(1, headA)
	serial, cloud := f.serial(), f.cloud()
	ev := f.comment(1, "alice", "/kyku apply")
	ev.SeenHead, ev.CommentedAt = headA, posted
	d := f.deps
	d.GitHub = arrivalUnknown{GitHub: d.GitHub, failing: failing}

	out, err := review.Comment(t.Context(), d, f.settings, ev)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want the failed check named", err)
	}
	if out.Apply != nil && out.Apply.Applied {
		t.Fatal("applied without knowing when the head arrived")
	}
	if f.serial() != serial || !slices.Equal(f.cloud(), cloud) {
		t.Errorf("state or cloud changed: serial %d→%d, cloud %v→%v", serial, f.serial(), cloud, f.cloud())
	}
	replies := f.replies(1)
	if len(replies) == 0 {
		t.Fatal("no reply")
	}
	contains(t, "reply", replies[len(replies)-1], "502 Bad Gateway")
}
