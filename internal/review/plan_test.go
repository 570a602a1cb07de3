package review_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/review"
)

// TestPlanComments: a PR gets one sticky plan comment edited on every push,
// or a new comment per plan, or none, as the comment mode says.
func TestPlanComments(t *testing.T) {
	marker := render.PlanMarker("", env)
	tests := []struct {
		mode string
		// want: after each of the two plans, the bot's comments that carry
		// the plan marker, and all the bot's comments.
		wantMarked, wantAll []int
	}{
		{mode: "", wantMarked: []int{1, 1}, wantAll: []int{1, 1}},
		{mode: "sticky", wantMarked: []int{1, 1}, wantAll: []int{1, 1}},
		{mode: "new", wantMarked: []int{1, 2}, wantAll: []int{1, 2}},
		{mode: "off", wantMarked: []int{0, 0}, wantAll: []int{0, 0}},
	}
	for _, tt := range tests {
		t.Run("mode="+tt.mode, func(t *testing.T) {
			f := newFixture(t)
			f.settings.CommentMode = tt.mode
			f.addPR(1, headA)
			var gotMarked, gotAll []int
			var outs []*review.PlanOutcome
			for _, head := range []string{headA, headB} {
				f.srv.UpdatePullRequest(repoName, 1, func(pr *githubtest.PullRequest) { pr.HeadSHA = head })
				outs = append(outs, f.plan(1, head))
				marked := 0
				for _, b := range f.replies(1) {
					if strings.Contains(b, marker) {
						marked++
					}
				}
				gotMarked, gotAll = append(gotMarked, marked), append(gotAll, len(f.replies(1)))
			}
			if diff := cmp.Diff(tt.wantMarked, gotMarked); diff != "" {
				t.Errorf("comments with the plan marker (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAll, gotAll); diff != "" {
				t.Errorf("bot comments (-want +got):\n%s", diff)
			}
			replies := f.replies(1)
			switch tt.mode {
			case "off":
				if n := f.srv.CountRequests("", "/comments"); n != 0 {
					t.Errorf("comment mode off made %d comment requests", n)
				}
				if outs[1].CommentURL != "" {
					t.Errorf("CommentURL = %q with comments off", outs[1].CommentURL)
				}
			case "new":
				contains(t, "first comment", replies[0], headA)
				contains(t, "second comment", replies[1], headB)
			default:
				// The same comment now shows the second head's plan.
				contains(t, "sticky comment", replies[0], headB, "2 to create", outs[1].Digest)
				if strings.Contains(replies[0], headA) {
					t.Errorf("sticky comment still shows the old head:\n%s", replies[0])
				}
				if outs[0].CommentURL == "" || outs[0].CommentURL != outs[1].CommentURL {
					t.Errorf("comment URLs %q then %q, want the same sticky comment", outs[0].CommentURL, outs[1].CommentURL)
				}
				if n := f.srv.CountRequests("PATCH", ""); n != 1 {
					t.Errorf("%d edits, want 1 (the second plan edits the first comment)", n)
				}
			}
			f.noSecret(outs[0].Summary, outs[1].Summary, string(outs[0].Redacted), string(outs[1].Redacted))
		})
	}
}

// TestPlanSavesTheFullPlan: the saved plan is at SavedPlanKey, decodes with
// the config embedded (so apply needs no checkout), and its digest is the
// one shown; the artifact and summary have no sensitive value in clear.
func TestPlanSavesTheFullPlan(t *testing.T) {
	f := newFixture(t)
	f.addPR(7, headA)
	out := f.plan(7, headA)

	wantKey := "plans/prod/pr-7-" + headA + ".json"
	if out.SavedKey != wantKey {
		t.Errorf("SavedKey = %q, want %q", out.SavedKey, wantKey)
	}
	data, err := f.backend().GetObject(t.Context(), wantKey)
	if err != nil {
		t.Fatalf("saved plan: %v", err)
	}
	saved, err := plan.Decode(wantKey, data)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Config == nil || saved.Config.Resource("web") == nil {
		t.Fatalf("saved plan has no embedded config: %+v", saved.Config)
	}
	if got := saved.Config.Resource("web").Properties["userData"]; got != secret {
		t.Errorf("saved plan's userData = %v, want the real value (the backend may hold it)", got)
	}
	if d, err := review.ChangesDigest(saved); err != nil || out.Digest != d {
		t.Errorf("digest %s is not the saved plan's changes digest %s (%v)", out.Digest, d, err)
	}
	if saved.Counters.Create != 1 || !out.Plan.HasChanges() {
		t.Errorf("counters %+v, want 1 create", saved.Counters)
	}
	contains(t, "redacted plan.json", string(out.Redacted), `"resourceId": "web"`, plan.Masked)
	contains(t, "summary", out.Summary, "1 to create", out.Digest)
	if strings.Contains(out.Summary, render.PlanMarker("", env)) {
		t.Errorf("the job summary carries the comment marker")
	}
	f.noSecret(out.Summary, string(out.Redacted))
	// A value the config's files hold is no log mask: a pull request chose
	// it, and a mask hides that text in the whole log. Every rendering
	// above shows it masked all the same.
	if slices.Contains(f.masked, secret) {
		t.Errorf("the config's own sensitive literal was registered with Mask: %q", f.masked)
	}
	if f.serial() != 0 || len(f.cloud()) != 0 {
		t.Errorf("planning changed something: serial %d, cloud %v", f.serial(), f.cloud())
	}
}

// TestPlanWithoutPR: number 0 (a push) plans without saving or commenting.
func TestPlanWithoutPR(t *testing.T) {
	f := newFixture(t)
	out, err := review.Plan(t.Context(), f.deps, review.PlanRequest{
		Settings: f.settings, HeadSHA: headA, Config: parse(t, configV1),
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.SavedKey != "" || len(f.objects("plans/")) != 0 || len(f.srv.Requests()) != 0 {
		t.Errorf("saved %q, objects %v, %d API requests; want none", out.SavedKey, f.objects("plans/"), len(f.srv.Requests()))
	}
}

// TestPlanFailureIsShownOnThePR: when the backend cannot be opened, the
// error is returned and the sticky comment says why there is no plan.
func TestPlanFailureIsShownOnThePR(t *testing.T) {
	f := newFixture(t)
	f.addPR(3, headA)
	f.plan(3, headA) // a good plan first: its comment is replaced
	// An error that quotes a sensitive value of the config is scrubbed.
	boom := errors.New("backend unreachable: connection refused (userData " + secret + ")")
	f.deps.Open = func(context.Context, *config.Config, string) (*review.Workspace, error) { return nil, boom }
	_, err := review.Plan(t.Context(), f.deps, review.PlanRequest{
		Settings: f.settings, Number: 3, HeadSHA: headB, Config: parse(t, configV2),
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the opener's error wrapped", err)
	}
	replies := f.replies(3)
	if len(replies) != 1 {
		t.Fatalf("%d comments, want the one sticky comment", len(replies))
	}
	contains(t, "failed plan comment", replies[0], render.PlanMarker("", env), "Kyku plan for `prod` failed",
		"`bbbbbbb`", "connection refused", "(userData (sensitive))", "`/kyku plan -e prod`")
	f.noSecret()
}

// TestPlanRejectsUnknownSettings: a typo in a setting fails closed.
func TestPlanRejectsUnknownSettings(t *testing.T) {
	f := newFixture(t)
	for _, s := range []review.Settings{{CommentMode: "sticki"}, {ApplyPermission: "writer"}} {
		if _, err := review.Plan(t.Context(), f.deps, review.PlanRequest{Settings: s, Number: 1, HeadSHA: headA, Config: parse(t, configV1)}); err == nil {
			t.Errorf("settings %+v accepted", s)
		}
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("%d API requests with bad settings", n)
	}
}
