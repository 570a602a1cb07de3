package review_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/review"
)

// TestEditedPlanCommentRefusesApply (issue 20, attack 1): the state holds
// two Vms; pull request #2 destroys one, and Kyku's plan comment says so.
// Its author, a writer, edits that comment into a harmless one and keeps
// Kyku's hidden lines; a reviewer approves what they read. /kyku apply is
// refused with who edited the comment and when, and asks for /kyku plan;
// an edit put back to the very body Kyku posted is refused too (the
// comment moved on since Kyku wrote it). Once Kyku plans again, what
// reviewers read is Kyku's, and the apply goes through.
func TestEditedPlanCommentRefusesApply(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	f.settings.RequireApproval = true
	f.srv.SetPermission(repoName, "author", "write")
	f.srv.SetPermission(repoName, "reviewer", "write")
	f.trusted = configV2
	f.addPR(1, headB)
	f.plan(1, headB)
	f.srv.AddReview(repoName, 1, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headB})
	if out, err := review.Apply(ctx, f.deps, review.ApplyRequest{Settings: f.settings, Number: 1, Commenter: "author"}); err != nil || !out.Applied {
		t.Fatalf("apply #1: %v %+v", err, out)
	}
	if n := len(f.cloud()); n != 2 {
		t.Fatalf("the cloud holds %d Vms, want 2", n)
	}

	f.addPR(2, headA) // configV1: the worker goes
	f.plan(2, headA)
	posted := planComment(t, f, 2)
	if !strings.Contains(posted.Body, "1 to destroy") {
		t.Fatalf("the plan comment does not show the destroy:\n%s", posted.Body)
	}
	harmless := strings.Join(hiddenLines(posted.Body), "\n") + "\n### Kyku plan for `prod`\n\n**Plan: 0 to create, 0 to update, 0 to replace, 0 to destroy, 1 no-op**\n"
	f.srv.SetNow(func() time.Time { return time.Date(2025, 3, 2, 9, 30, 0, 0, time.UTC) })
	f.srv.EditComment(repoName, posted.ID, "author", harmless)
	f.srv.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})

	apply := func() (*review.ApplyOutcome, string) {
		t.Helper()
		ev := f.comment(2, "author", "/kyku apply")
		out, err := review.Comment(ctx, f.deps, f.settings, ev)
		if err != nil || out.Apply == nil {
			t.Fatalf("/kyku apply: %v %+v", err, out)
		}
		replies := f.replies(2)
		return out.Apply, replies[len(replies)-1]
	}
	serial := f.serial()
	out, reply := apply()
	for _, want := range []string{"was edited by `author` at 2025-03-02 09:30:00 UTC", "after Kyku posted it", "Comment `/kyku plan -e prod` to re-plan"} {
		contains(t, "refusal", out.Refused.String(), want)
		contains(t, "reply", reply, want)
	}
	if out.Applied || f.serial() != serial || len(f.cloud()) != 2 {
		t.Fatalf("applied the destroy nobody was shown: %+v, cloud %v", out, f.cloud())
	}

	// Put back exactly: still not what Kyku wrote last.
	f.srv.SetNow(func() time.Time { return time.Date(2025, 3, 2, 9, 31, 0, 0, time.UTC) })
	f.srv.EditComment(repoName, posted.ID, "author", posted.Body)
	if out, _ := apply(); out.Applied || !strings.Contains(out.Refused.String(), "was edited by `author`") {
		t.Fatalf("an edit put back was applied: %+v", out)
	}

	// Kyku plans again: the comment is Kyku's once more, and what was
	// reviewed (re-approved) applies.
	f.plan(2, headA)
	out, _ = apply()
	if !out.Applied || len(f.cloud()) != 1 {
		t.Fatalf("after /kyku plan: %+v, cloud %v", out, f.cloud())
	}
}

// TestPlanCommentRecordIsRequired: a plan comment with no record of
// Kyku posting it (written before records were kept, or the record lost)
// is no evidence: refused, asking for a new plan.
func TestPlanCommentRecordIsRequired(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	f.srv.SetPermission(repoName, "alice", "write")
	f.addPR(1, headA)
	f.plan(1, headA)
	ws := f.workspace()
	key := review.PostedKey("", env, 1, headA)
	if _, err := ws.Backend.GetObject(ctx, key); err != nil {
		t.Fatalf("no record at %s: %v", key, err)
	}
	if err := ws.Backend.PutObject(ctx, key, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	serial := f.serial()
	out, reply := f.applyAs("alice")
	f.wantRefused(out, reply, serial, "is not one Kyku wrote")
}

// planComment is Kyku's plan comment on number.
func planComment(t *testing.T, f *fixture, number int) githubtest.Comment {
	t.Helper()
	for _, c := range f.srv.Comments(repoName, number) {
		if c.User == githubtest.TokenUser && strings.Contains(c.Body, "kyku:plan") {
			return c
		}
	}
	t.Fatalf("no plan comment on #%d", number)
	return githubtest.Comment{}
}

// hiddenLines are the body's hidden <!-- … --> lines.
func hiddenLines(body string) []string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "<!-- kyku:") {
			out = append(out, l)
		}
	}
	return out
}
