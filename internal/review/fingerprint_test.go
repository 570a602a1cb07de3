package review_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/review"
)

// TestDriftSpeaksOnlyWhenItChanges: the same drift found twice notifies
// once; drift that changes updates the issue with ONE comment saying what
// is new; drift that is gone closes the issue. The fingerprint holds no
// value, and a stranger's look-alike issue is neither read nor edited.
func TestDriftSpeaksOnlyWhenItChanges(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	cfg := parse(t, configV1)
	if _, err := f.workspace().Engine.Apply(ctx, cfg, engine.ApplyOptions{AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	// A stranger's issue carrying Kyku's marker and label, and a
	// fingerprint of the drift about to happen: not Kyku's, so not read.
	strangerBody := render.DriftMarker("", env) + "\n<!-- kyku:drift-fingerprint " + strings.Repeat("0", 64) + " ids= -->\n"
	stranger := f.srv.AddIssue(repoName, githubtest.Issue{Title: "drift", Body: strangerBody, User: "mallory", Labels: []string{"kyku-drift"}})

	check := func() *review.DriftOutcome {
		t.Helper()
		out, err := review.Drift(ctx, f.deps, review.DriftRequest{Settings: f.settings, Config: cfg})
		if err != nil {
			t.Fatalf("Drift: %v", err)
		}
		return out
	}
	writes := func() int { return f.srv.CountRequests("POST", "") + f.srv.CountRequests("PATCH", "") }

	f.editVm(func(p map[string]any) { p["size"] = "xlarge"; p["userData"] = "changed-" + secret })
	first := check()
	if !first.Drift || !first.Notified || first.Fingerprint == "" {
		t.Fatalf("first drift: %+v", first)
	}
	issues := f.srv.Issues(repoName)
	if len(issues) != 2 || issues[0].Number != stranger || issues[0].Body != strangerBody {
		t.Fatalf("issues %+v: want the stranger's untouched and Kyku's own", issues)
	}
	own := issues[1]
	fp := regexp.MustCompile(`(?m)^<!-- kyku:drift-fingerprint [0-9a-f]{64} ids=[0-9a-f,]+ -->$`).FindString(own.Body)
	if fp == "" || strings.Contains(fp, "xlarge") || strings.Contains(fp, secret) {
		t.Fatalf("fingerprint line %q (want ids only, no values) in:\n%s", fp, own.Body)
	}

	// The same drift again: nothing written, no one notified.
	f.srv.ResetRequests()
	again := check()
	if !again.Drift || again.Notified || again.Fingerprint != first.Fingerprint || again.IssueURL == "" {
		t.Errorf("same drift again: %+v", again)
	}
	if n := writes(); n != 0 {
		t.Errorf("the same drift wrote %d times to GitHub: %+v", n, f.srv.Requests())
	}
	if c := f.srv.Comments(repoName, own.Number); len(c) != 0 {
		t.Errorf("comments after the same drift: %+v", c)
	}
	// A sensitive value drifting again to another value is not news: its
	// entry carries no digest of the value.
	f.editVm(func(p map[string]any) { p["userData"] = "changed-again-" + secret })
	if out := check(); out.Notified {
		t.Errorf("a sensitive value's second change notified: %+v", out)
	}

	// Changed drift: the issue is updated and gets one comment.
	f.editVm(func(p map[string]any) { p["image"] = "debian-13" })
	changed := check()
	if !changed.Notified || changed.Fingerprint == first.Fingerprint || len(changed.New) != 1 {
		t.Fatalf("changed drift: %+v", changed)
	}
	comments := f.srv.Comments(repoName, own.Number)
	if len(comments) != 1 {
		t.Fatalf("%d comments after a change, want 1", len(comments))
	}
	contains(t, "change comment", comments[0].Body, "New since the last report", "`Vm web`: `image`")
	if strings.Contains(comments[0].Body, "size") {
		t.Errorf("the change comment repeats old drift:\n%s", comments[0].Body)
	}
	contains(t, "updated issue", f.srv.Issues(repoName)[1].Body, "`debian-13`", "`xlarge`")

	// Part of the drift is fixed: that is a change too (one comment).
	f.editVm(func(p map[string]any) { p["image"] = "debian-12" })
	if out := check(); !out.Notified || len(out.New) != 0 {
		t.Errorf("drift partly fixed: %+v", out)
	}
	comments = f.srv.Comments(repoName, own.Number)
	if len(comments) != 2 || !strings.Contains(comments[1].Body, "1 earlier drift no longer found") {
		t.Fatalf("comments after a partial fix: %+v", comments)
	}

	// Gone: closed with a comment; the stranger's issue stays open.
	f.editVm(func(p map[string]any) { p["size"] = "small"; p["userData"] = secret })
	if out := check(); out.Drift || !out.Closed {
		t.Fatalf("drift gone: %+v", out)
	}
	issues = f.srv.Issues(repoName)
	if issues[0].State != "open" || issues[1].State != "closed" {
		t.Errorf("issue states %s (stranger's), %s (Kyku's)", issues[0].State, issues[1].State)
	}
	f.noSecret()
}
