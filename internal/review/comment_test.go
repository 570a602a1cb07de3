package review_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/review"
)

// TestCommentIgnored: what is not for this job makes no API call at all.
func TestCommentIgnored(t *testing.T) {
	ok := review.CommentEvent{Action: "created", Number: 1, IsPR: true, Body: "/kyku apply", Author: "alice", CommentID: 99}
	tests := []struct {
		name string
		edit func(*review.CommentEvent)
		s    review.Settings
	}{
		{name: "edited", edit: func(e *review.CommentEvent) { e.Action = "edited" }},
		{name: "deleted", edit: func(e *review.CommentEvent) { e.Action = "deleted" }},
		{name: "not a pull request", edit: func(e *review.CommentEvent) { e.IsPR = false }},
		{name: "by a bot", edit: func(e *review.CommentEvent) { e.AuthorIsBot, e.Author = true, "kyku[bot]" }},
		{name: "no command", edit: func(e *review.CommentEvent) { e.Body = "LGTM, let's /kyku it later" }},
		{name: "command in a code block", edit: func(e *review.CommentEvent) { e.Body = "```\n/kyku apply\n```" }},
		{name: "other environment", edit: func(e *review.CommentEvent) { e.Body = "/kyku apply -e staging" }},
		{name: "other project", edit: func(e *review.CommentEvent) { e.Body = "/kyku apply -p network" }, s: review.Settings{Environment: env, Project: "web"}},
		{name: "other environment, bad flag", edit: func(e *review.CommentEvent) { e.Body = "/kyku apply -e staging --force" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			ev := ok
			tt.edit(&ev)
			s := tt.s
			if reflect.ValueOf(s).IsZero() {
				s = f.settings
			}
			out, err := review.Comment(t.Context(), f.deps, s, ev)
			if err != nil {
				t.Fatal(err)
			}
			if out.Ignored == "" {
				t.Errorf("not ignored: %+v", out)
			}
			if reqs := f.srv.Requests(); len(reqs) != 0 {
				t.Errorf("%d API requests, want none: %+v", len(reqs), reqs)
			}
		})
	}
}

// TestCommentReplies: help and invalid commands get one reply (even when
// several jobs answer the same comment), with reactions.
func TestCommentReplies(t *testing.T) {
	tests := []struct {
		name          string
		body          string
		want          []string
		wantReactions []string
	}{
		{name: "help", body: "/kyku help", want: []string{"Kyku commands", "/kyku apply [-e env]"}, wantReactions: []string{"eyes", "+1"}},
		{name: "bare prefix means help", body: "please\n/kyku", want: []string{"Kyku commands"}, wantReactions: []string{"eyes", "+1"}},
		{
			name: "bad flag", body: "/kyku apply --force",
			want:          []string{"could not read the command", "unknown flag \"--force\"", "Kyku commands"},
			wantReactions: []string{"eyes", "confused"},
		},
		{
			name: "unknown command with markup", body: "/kyku <img src=x>@everyone",
			want:          []string{"```text\nunknown command \"<img"},
			wantReactions: []string{"eyes", "confused"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.addPR(1, headA)
			ev := f.comment(1, "alice", tt.body)
			for range 2 { // two jobs (or a redelivery) answering the same comment
				out, err := review.Comment(t.Context(), f.deps, f.settings, ev)
				if err != nil {
					t.Fatal(err)
				}
				if out.Ignored != "" || out.Replied == "" {
					t.Fatalf("outcome %+v, want a reply", out)
				}
			}
			replies := f.replies(1)
			if len(replies) != 1 {
				t.Fatalf("%d replies, want 1", len(replies))
			}
			contains(t, "reply", replies[0], tt.want...)
			if diff := cmp.Diff(tt.wantReactions, f.reactions(1, ev.CommentID)); diff != "" {
				t.Errorf("reactions (-want +got):\n%s", diff)
			}
			if n := f.srv.CountRequests("", "/pulls/1"); n != 0 {
				t.Errorf("fetched the PR %d times for a reply", n)
			}
		})
	}
}

// TestCommentPlan: `/kyku plan` plans the PR's head (config from Source at
// the head SHA, backend from the trusted config) into the sticky comment.
func TestCommentPlan(t *testing.T) {
	f := newFixture(t)
	f.addPR(1, headB)
	var loaded []string
	source := f.deps.Source
	f.deps.Source = func(ctx context.Context, ref string) (*config.Config, error) {
		loaded = append(loaded, ref)
		return source(ctx, ref)
	}
	f.srv.SetPermission(repoName, "alice", "write")
	ev := f.comment(1, "alice", "/kyku plan -e prod")
	out, err := review.Comment(t.Context(), f.deps, f.settings, ev)
	if err != nil {
		t.Fatal(err)
	}
	if out.Command != "/kyku plan -e prod" || out.Plan == nil {
		t.Fatalf("outcome %+v", out)
	}
	if diff := cmp.Diff([]string{headB}, loaded); diff != "" {
		t.Errorf("configs loaded (-want +got):\n%s", diff)
	}
	replies := f.replies(1)
	if len(replies) != 1 {
		t.Fatalf("%d comments, want the plan comment", len(replies))
	}
	contains(t, "plan comment", replies[0], render.PlanMarker("", env), "2 to create", headB)
	if diff := cmp.Diff([]string{"eyes", "+1"}, f.reactions(1, ev.CommentID)); diff != "" {
		t.Errorf("reactions (-want +got):\n%s", diff)
	}
	if out.Plan.SavedKey != review.SavedPlanKey("", env, 1, headB) {
		t.Errorf("saved at %q", out.Plan.SavedKey)
	}

	// Then a writer applies it.
	ev = f.comment(1, "alice", "/kyku apply")
	out, err = review.Comment(t.Context(), f.deps, f.settings, ev)
	if err != nil || out.Apply == nil || !out.Apply.Applied {
		t.Fatalf("apply after /kyku plan: %v %+v", err, out)
	}
	if got := len(f.cloud()); got != 2 {
		t.Errorf("%d objects in the cloud, want 2", got)
	}
	f.noSecret()
}

// TestCommentPlanOfABrokenConfig: the config error is shown on the PR and
// returned; nothing is saved.
func TestCommentPlanOfABrokenConfig(t *testing.T) {
	f := newFixture(t)
	const broken = "bad0000000000000000000000000000000000bad"
	f.sources[broken] = "resources:\n  web:\n    type: Vmm\n"
	f.addPR(1, broken)
	f.srv.SetPermission(repoName, "alice", "write")
	ev := f.comment(1, "alice", "/kyku plan")
	_, err := review.Comment(t.Context(), f.deps, f.settings, ev)
	if err == nil {
		t.Fatal("no error for a broken config")
	}
	replies := f.replies(1)
	if len(replies) != 1 {
		t.Fatalf("%d comments, want the failed plan comment", len(replies))
	}
	contains(t, "failed plan comment", replies[0], "Kyku plan for `prod` failed", "kyku.yaml:3", "Vmm")
	if len(f.objects("plans/")) != 0 {
		t.Errorf("a plan was saved: %v", f.objects("plans/"))
	}
	if diff := cmp.Diff([]string{"eyes", "confused"}, f.reactions(1, ev.CommentID)); diff != "" {
		t.Errorf("reactions (-want +got):\n%s", diff)
	}
	if strings.Contains(replies[0], "To apply this plan") {
		t.Errorf("a failed plan offers to apply")
	}
}

// TestApplyModeDecidesWhatApplies: the apply mode is review's rule for
// every front door. /kyku apply in a merge-only repository is refused
// with a one-line reply naming the setting and a -1 reaction; a merge in
// a comment-only one, and a merge group outside merge-queue mode, apply
// nothing and call GitHub for nothing.
func TestApplyModeDecidesWhatApplies(t *testing.T) {
	f := newFixture(t)
	f.srv.SetPermission(repoName, "alice", "write")
	f.addPR(1, headA)
	f.plan(1, headA)
	serial := f.serial()

	s := f.settings
	s.Apply, s.RulesFrom = review.ApplyOnMerge, "the workflow's inputs"
	ev := f.comment(1, "alice", "/kyku apply")
	out, err := review.Comment(t.Context(), f.deps, s, ev)
	if err != nil {
		t.Fatal(err)
	}
	if out.Apply != nil || out.Refused == nil || out.Refused.Requirement != review.RequireApplyMode {
		t.Fatalf("outcome %+v, want refused for the apply mode", out)
	}
	want := "**Kyku did not run `/kyku apply`:** This repository applies on merge only (`apply: merge` in the workflow's inputs), not on a comment.\n"
	if replies := f.replies(1); len(replies) == 0 || !strings.HasPrefix(replies[len(replies)-1], want) {
		t.Errorf("replies %q, want the last %q", replies, want)
	}
	if got := f.reactions(1, ev.CommentID); strings.Join(got, ",") != "eyes,-1" {
		t.Errorf("reactions %v", got)
	}

	requests := f.srv.CountRequests("", "")
	s.Apply = review.ApplyOnComment
	merged, err := review.ApplyMerged(t.Context(), f.deps, s, headA, "merger")
	if err != nil || merged.Applied || merged.Refused == nil || merged.Refused.Requirement != review.RequireApplyMode {
		t.Errorf("merge with apply: comment: %+v, %v", merged, err)
	}
	queued, err := review.ApplyMergeGroup(t.Context(), f.deps, s, review.MergeGroup{HeadSHA: headB, HeadRef: "refs/heads/gh-readonly-queue/main/pr-1-" + headA, BaseRef: "refs/heads/main"})
	if err != nil || queued.Applied || queued.Refused == nil || queued.Refused.Requirement != review.RequireApplyMode {
		t.Errorf("merge group with apply: comment: %+v, %v", queued, err)
	}
	if n := f.srv.CountRequests("", ""); n != requests {
		t.Errorf("%d GitHub calls for applies the mode refuses", n-requests)
	}
	if f.serial() != serial {
		t.Error("something was applied")
	}
}

// TestTargetReplyMarkersNeverContainOneAnother: replies are found again by
// a marker contained in their body (github.Repo.Upsert), so no target's
// marker contains another's, nor the comment-wide one, whatever the
// names (a name that would close the marker early included).
func TestTargetReplyMarkersNeverContainOneAnother(t *testing.T) {
	targets := [][2]string{{"", ""}, {"", "prod"}, {"infra", ""}, {"infra", "prod"}, {"infra", "prod2"}, {"infra2", "prod"},
		{"a -->", ""}, {"a", "--> project=b"}, {"a project=b", ""}, {"x", "y -->"}}
	markers := []string{review.ReplyMarker(7), review.ReplyMarker(70)}
	for _, tg := range targets {
		markers = append(markers, review.TargetReplyMarker(7, tg[0], tg[1]), review.TargetReplyMarker(70, tg[0], tg[1]))
	}
	for i, a := range markers {
		if strings.Count(a, "-->") != 1 || !strings.HasSuffix(a, " -->") {
			t.Errorf("marker %q ends early", a)
		}
		for j, b := range markers {
			if i != j && strings.Contains(a, b) {
				t.Errorf("marker %q contains %q", a, b)
			}
		}
	}
}
