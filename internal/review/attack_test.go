package review_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/review"
)

// applyAs comments /kyku apply on PR #1 as user and returns the outcome
// and the reply.
func (f *fixture) applyAs(user string) (*review.ApplyOutcome, string) {
	f.t.Helper()
	ev := f.comment(1, user, "/kyku apply")
	out, err := review.Comment(f.t.Context(), f.deps, f.settings, ev)
	if err != nil {
		f.t.Fatalf("Comment: %v", err)
	}
	if out.Apply == nil {
		f.t.Fatalf("outcome %+v, want an apply outcome", out)
	}
	replies := f.replies(1)
	return out.Apply, replies[len(replies)-1]
}

// wantRefused fails unless out was refused with a reply saying each of
// want, and nothing changed.
func (f *fixture) wantRefused(out *review.ApplyOutcome, reply string, serial int64, want ...string) {
	f.t.Helper()
	if out.Applied {
		f.t.Fatalf("applied, want refused; reply:\n%s", reply)
	}
	contains(f.t, "Refused", out.Refused.String(), want...)
	contains(f.t, "reply", reply, append([]string{"refused", "Nothing was applied."}, want...)...)
	if f.serial() != serial || len(f.cloud()) != 0 || len(f.audits()) != 0 {
		f.t.Errorf("a refused apply changed something: serial %d→%d, cloud %v, audits %d", serial, f.serial(), f.cloud(), len(f.audits()))
	}
}

// TestApprovalsFromAnyoneDoNotCount: the author of a pull request (a
// writer) comments /kyku apply alone, with approvals that must not count.
// Each refusal names the rule, who counted and who did not, and why.
func TestApprovalsFromAnyoneDoNotCount(t *testing.T) {
	type rv = githubtest.Review
	many := make([]githubtest.Commit, 250)
	for i := range many {
		many[i] = githubtest.Commit{SHA: fmt.Sprintf("%040d", i), Author: "author"}
	}
	tests := []struct {
		name        string
		required    int
		reviews     []rv
		commits     []githubtest.Commit
		wantRefused []string // nil: applied
		wantCounted []string
	}{
		{name: "a second account without access",
			reviews:     []rv{{User: "sock-puppet", State: "APPROVED", CommitID: headA}},
			wantRefused: []string{"needs 1 approval", "Counted: none.", "`sock-puppet` (has `none` permission; approvals need `write`)"}},
		{name: "a read-only collaborator",
			reviews:     []rv{{User: "rita", State: "APPROVED", CommitID: headA}},
			wantRefused: []string{"`rita` (has `read` permission; approvals need `write`)"}},
		{name: "the author",
			reviews:     []rv{{User: "author", State: "APPROVED", CommitID: headA}},
			wantRefused: []string{"`author` (is the author)"}},
		{name: "a bot account",
			reviews:     []rv{{User: "renovate", UserType: "Bot", State: "APPROVED", CommitID: headA}},
			wantRefused: []string{"`renovate` (is a bot)"}},
		{name: "an app",
			reviews:     []rv{{User: "helper[bot]", State: "APPROVED", CommitID: headA}},
			wantRefused: []string{"`helper[bot]` (is a bot)"}},
		{name: "someone who authored a commit of the pull request",
			reviews:     []rv{{User: "carol", State: "APPROVED", CommitID: headA}},
			commits:     []githubtest.Commit{{SHA: headA, Author: "carol", Committer: "web-flow"}},
			wantRefused: []string{"`carol` (authored or committed commits of this pull request)"}},
		{name: "someone who committed a commit of the pull request",
			reviews:     []rv{{User: "carol", State: "APPROVED", CommitID: headA}},
			commits:     []githubtest.Commit{{SHA: headA, Author: "author", Committer: "Carol"}},
			wantRefused: []string{"`carol` (authored or committed"}},
		{name: "an approval of an earlier commit",
			reviews:     []rv{{User: "carol", State: "APPROVED", CommitID: oldSHA}},
			wantRefused: []string{"`carol` (approved an earlier commit `ccccccc`)"}},
		{name: "an approval withdrawn by a change request on the second page",
			reviews: append(append([]rv{{User: "carol", State: "APPROVED", CommitID: headA}},
				slices.Repeat([]rv{{User: "dave", State: "COMMENTED", CommitID: headA}}, 120)...),
				rv{User: "carol", State: "CHANGES_REQUESTED", CommitID: headA}),
			wantRefused: []string{"`carol` (requested changes)"}},
		{name: "a dismissed approval",
			reviews:     []rv{{User: "carol", State: "DISMISSED", CommitID: headA}},
			wantRefused: []string{"`carol` (the review was dismissed)"}},
		{name: "more commits than GitHub lists",
			reviews:     []rv{{User: "carol", State: "APPROVED", CommitID: headA}},
			commits:     many,
			wantRefused: []string{"`carol` (the pull request has 250 or more commits"}},
		{name: "two required, one counts", required: 2,
			reviews:     []rv{{User: "carol", State: "APPROVED", CommitID: headA}, {User: "rita", State: "APPROVED", CommitID: headA}},
			wantRefused: []string{"needs 2 approvals of its current head commit `aaaaaaa` and has 1", "Counted: `carol`.", "`rita` (has `read` permission"}},
		{name: "two required, two count", required: 2,
			reviews:     []rv{{User: "dave", State: "APPROVED", CommitID: headA}, {User: "carol", State: "APPROVED", CommitID: headA}},
			wantCounted: []string{"carol", "dave"}},
		{name: "a comment after an approval keeps it",
			reviews:     []rv{{User: "carol", State: "APPROVED", CommitID: headA}, {User: "carol", State: "COMMENTED", CommitID: headA}},
			wantCounted: []string{"carol"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.settings.RequireApproval = true
			f.settings.RequiredApprovals = tt.required
			for user, role := range map[string]string{"author": "write", "rita": "read", "carol": "write", "dave": "write", "renovate": "write", "helper[bot]": "write"} {
				f.srv.SetPermission(repoName, user, role)
			}
			f.addPR(1, headA)
			f.srv.UpdatePullRequest(repoName, 1, func(pr *githubtest.PullRequest) { pr.Commits = tt.commits })
			f.plan(1, headA)
			for _, r := range tt.reviews {
				f.srv.AddReview(repoName, 1, r)
			}
			serial := f.serial()
			out, reply := f.applyAs("author")
			if tt.wantRefused != nil {
				f.wantRefused(out, reply, serial, tt.wantRefused...)
				return
			}
			if !out.Applied || out.Refused != nil {
				t.Fatalf("refused (%s), want applied", out.Refused)
			}
			if diff := cmp.Diff(tt.wantCounted, out.Approvers); diff != "" {
				t.Errorf("approvers (-want +got):\n%s", diff)
			}
			if recs := f.audits(); len(recs) != 1 || !slices.Equal(recs[0].ApprovedBy, tt.wantCounted) {
				t.Errorf("audit records %+v, want one naming %v", recs, tt.wantCounted)
			}
		})
	}
}

// savedKey is PR #1's saved plan at headA.
var savedKey = review.SavedPlanKey("", env, 1, headA)

// TestSavedPlanSwappedAfterReviewIsRefused: after the review, someone who
// can write to the backend (a same-repository pull request's workflow run
// can) changes the saved plan. The apply plans again from the approved
// commit, refuses, shows the fresh plan, and applies nothing.
func TestSavedPlanSwappedAfterReviewIsRefused(t *testing.T) {
	edit := func(f *fixture, change func(p *plan.Plan)) {
		ctx := t.Context()
		data, err := f.backend().GetObject(ctx, savedKey)
		if err != nil {
			f.t.Fatal(err)
		}
		p, err := plan.Decode(savedKey, data)
		if err != nil {
			f.t.Fatal(err)
		}
		change(p)
		if data, err = plan.Encode(p); err != nil {
			f.t.Fatal(err)
		}
		if err := f.backend().PutObject(ctx, savedKey, data); err != nil {
			f.t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		tamper func(f *fixture)
		want   []string
	}{
		{"replaced by another pull request's plan", func(f *fixture) {
			f.addPR(2, headB)
			f.plan(2, headB)
			data, err := f.backend().GetObject(t.Context(), review.SavedPlanKey("", env, 2, headB))
			if err != nil {
				f.t.Fatal(err)
			}
			if err := f.backend().PutObject(t.Context(), savedKey, data); err != nil {
				f.t.Fatal(err)
			}
		}, []string{"was not made from the configuration at that commit"}},
		{"changes edited, config kept", func(f *fixture) {
			edit(f, func(p *plan.Plan) { p.Changes[0].Properties[0].New = "debian-13" })
		}, []string{"does not match a fresh plan of that commit", "or the saved plan was altered"}},
		{"embedded config swapped, hash kept", func(f *fixture) {
			edit(f, func(p *plan.Plan) { p.Config = parse(f.t, configV2) })
		}, []string{"cannot be used", "its embedded configuration does not hash to its configHash"}},
		{"bytes edited, digest kept", func(f *fixture) {
			data, err := f.backend().GetObject(t.Context(), savedKey)
			if err != nil {
				f.t.Fatal(err)
			}
			data = bytes.Replace(data, []byte("debian-12"), []byte("debian-13"), -1)
			if err := f.backend().PutObject(t.Context(), savedKey, data); err != nil {
				f.t.Fatal(err)
			}
		}, []string{"cannot be used", "does not match its digest"}},
		{"truncated", func(f *fixture) {
			data, err := f.backend().GetObject(t.Context(), savedKey)
			if err != nil {
				f.t.Fatal(err)
			}
			if err := f.backend().PutObject(t.Context(), savedKey, data[:len(data)/2]); err != nil {
				f.t.Fatal(err)
			}
		}, []string{"cannot be used", "truncated or damaged"}},
		{"deploy prefix swapped", func(f *fixture) {
			edit(f, func(p *plan.Plan) {
				p.Prefix = "deadbeef"
				for i := range p.Changes {
					p.Changes[i].CloudName = "deadbeef-" + p.Changes[i].ResourceID
				}
			})
			// No state exists yet (plans write none), so the re-plan takes the
			// saved plan's prefix; the digest in Kyku's own comment, made
			// with the real prefix, catches the swap.
		}, []string{"The plan shown for review in Kyku's comment", "is not the plan of `aaaaaaa`"}},
		{"not a plan", func(f *fixture) {
			if err := f.backend().PutObject(t.Context(), savedKey, []byte(`{"formatVersion":1,"config":{"resources":[null]}}`)); err != nil {
				f.t.Fatal(err)
			}
		}, []string{"The saved plan for `aaaaaaa` cannot be used"}},
		{"the redacted artifact written back", func(f *fixture) {
			edit(f, func(p *plan.Plan) { *p = *render.RedactPlan(p) })
		}, []string{"cannot be used", "redacted"}},
		{"a plan for another environment", func(f *fixture) {
			edit(f, func(p *plan.Plan) { p.Environment = "staging" })
		}, []string{"cannot be used", `environment "staging"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.settings.RequireApproval = true
			f.srv.SetPermission(repoName, "alice", "write")
			f.srv.SetPermission(repoName, "carol", "write")
			f.addPR(1, headA)
			f.plan(1, headA)
			f.srv.AddReview(repoName, 1, githubtest.Review{User: "carol", State: "APPROVED", CommitID: headA})
			tt.tamper(f)
			serial := f.serial()
			out, reply := f.applyAs("alice")
			f.wantRefused(out, reply, serial, tt.want...)
			contains(t, "reply", reply, "What Kyku would apply now, for review:", "1 to create", "web")
			f.noSecret()
		})
	}
}

// TestPlanCommentOfAnotherAuthorIsNeverTrusted: what the apply compares
// with is Kyku's OWN newest plan comment. Here it shows a failed plan of
// the head, while a plan for the head was saved (as a pull request's own
// workflow run could) and a stranger posted a comment with Kyku's marker
// and that plan's digest: nothing is applied. A stranger's comment is not
// edited or folded either.
func TestPlanCommentOfAnotherAuthorIsNeverTrusted(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	f.srv.SetPermission(repoName, "alice", "write")
	f.srv.SetPermission(repoName, "carol", "write")
	marker := render.PlanMarker("", env)
	decoy := f.srv.AddComment(repoName, 1, "mallory", "nothing to see\n"+marker)
	f.addPR(1, headA)
	f.plan(1, headA)

	// The head moves on; Kyku's own comment now says the plan failed.
	f.srv.UpdatePullRequest(repoName, 1, func(pr *githubtest.PullRequest) { pr.HeadSHA = headB })
	if _, err := f.deps.GitHub.Upsert(ctx, 1, marker, marker+"\n### Kyku plan for `prod` failed\n"); err != nil {
		t.Fatal(err)
	}
	// A plan of the head is saved without any comment...
	s := f.settings
	s.CommentMode = review.ModeOff
	saved, err := review.Plan(ctx, f.deps, review.PlanRequest{Settings: s, Number: 1, HeadSHA: headB, Config: parse(t, configV2), Trusted: parse(t, configV1)})
	if err != nil {
		t.Fatal(err)
	}
	// ...and a stranger shows its digest under Kyku's marker.
	f.srv.AddComment(repoName, 1, "mallory", marker+"\nlooks fine\n<!-- kyku:reviewed head="+headB+" changes="+saved.Digest+" -->\n")
	f.srv.AddReview(repoName, 1, githubtest.Review{User: "carol", State: "APPROVED", CommitID: headB})

	serial := f.serial()
	out, reply := f.applyAs("alice")
	f.wantRefused(out, reply, serial, "Kyku's latest plan comment shows no plan")
	for _, c := range f.srv.Comments(repoName, 1) {
		if c.ID == decoy && c.Body != "nothing to see\n"+marker {
			t.Errorf("the stranger's comment was edited: %q", c.Body)
		}
	}

	// Once Kyku plans the head itself, the same apply goes through.
	f.plan(1, headB)
	out, _ = f.applyAs("alice")
	if !out.Applied {
		t.Fatalf("refused after Kyku's own plan: %s", out.Refused)
	}
	if out.Digest != saved.Digest {
		t.Errorf("applied digest %s, want the reviewed %s", out.Digest, saved.Digest)
	}
}

// TestCommentShowingAnotherPlanIsRefused: the saved plan matches, but
// Kyku's comment showed a plan of an older commit (the head moved without
// a new comment) or is gone: nothing is applied.
func TestCommentShowingAnotherPlanIsRefused(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		name  string
		setup func(f *fixture)
		want  string
	}{
		{"comment for an older head", func(f *fixture) {
			f.plan(1, headA)
			f.srv.UpdatePullRequest(repoName, 1, func(pr *githubtest.PullRequest) { pr.HeadSHA = headB })
			s := f.settings
			s.CommentMode = review.ModeOff
			if _, err := review.Plan(ctx, f.deps, review.PlanRequest{Settings: s, Number: 1, HeadSHA: headB, Config: parse(f.t, configV2), Trusted: parse(f.t, configV1)}); err != nil {
				f.t.Fatal(err)
			}
		}, "Kyku's latest plan comment is for commit `aaaaaaa`, not for the current head `bbbbbbb`"},
		{"no comment at all", func(f *fixture) {
			s := f.settings
			s.CommentMode = review.ModeOff
			if _, err := review.Plan(ctx, f.deps, review.PlanRequest{Settings: s, Number: 1, HeadSHA: headA, Config: parse(f.t, configV1), Trusted: parse(f.t, configV1)}); err != nil {
				f.t.Fatal(err)
			}
		}, "Kyku's plan comment for `prod` is missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.srv.SetPermission(repoName, "alice", "write")
			f.addPR(1, headA)
			tc.setup(f)
			serial := f.serial()
			out, reply := f.applyAs("alice")
			f.wantRefused(out, reply, serial, tc.want)
		})
	}
}

// TestChangesDigestIsCanonical: the digest of a plan does not depend on
// when it was made or how it was encoded, and does depend on every change
// and on the cloud names.
func TestChangesDigestIsCanonical(t *testing.T) {
	f := newFixture(t)
	f.addPR(1, headA)
	out := f.plan(1, headA)
	p := out.Plan
	data, err := plan.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	again, err := plan.Decode("x", data)
	if err != nil {
		t.Fatal(err)
	}
	again.CreatedAt = again.CreatedAt.Add(3600e9)
	again.Serial += 7
	d1, _ := review.ChangesDigest(p)
	d2, _ := review.ChangesDigest(again)
	if d1 != d2 || d1 != out.Digest {
		t.Errorf("digests %s, %s, %s differ for the same changes", d1, d2, out.Digest)
	}
	for name, change := range map[string]func(p *plan.Plan){
		"cloud name":  func(p *plan.Plan) { p.Changes[0].CloudName = "other-web" },
		"prefix":      func(p *plan.Plan) { p.Prefix = "deadbeef" },
		"action":      func(p *plan.Plan) { p.Changes[0].Action = plan.Replace },
		"property":    func(p *plan.Plan) { p.Changes[0].Properties[0].New = "x" },
		"config":      func(p *plan.Plan) { p.ConfigHash = strings.Repeat("0", 64) },
		"move source": func(p *plan.Plan) { p.Changes[0].MovedFrom = "app-server" },
		"move rename": func(p *plan.Plan) { p.Changes[0].PriorCloudName = "old-name" },
		"import":      func(p *plan.Plan) { p.Changes[0].Action = plan.Import },
		"move":        func(p *plan.Plan) { p.Changes[0].Action = plan.Move },
		"targets":     func(p *plan.Plan) { p.Targets = []string{"web"} },
	} {
		var c plan.Plan
		b, _ := json.Marshal(again)
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		change(&c)
		if d, _ := review.ChangesDigest(&c); d == d1 {
			t.Errorf("changing the %s kept the digest", name)
		}
	}
}
