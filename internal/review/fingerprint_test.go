package review_test

import (
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
// value and lives in the backend, and a stranger's look-alike issue is
// neither read nor edited.
func TestDriftSpeaksOnlyWhenItChanges(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
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
	if strings.Contains(own.Body, "drift-fingerprint") {
		t.Errorf("the issue carries the fingerprint, which any writer can edit:\n%s", own.Body)
	}
	rec := string(f.objects("drift/")[review.DriftKey("", env)])
	if !regexp.MustCompile(`"fingerprint": "[0-9a-f]{64}"`).MatchString(rec) || strings.Contains(rec, "xlarge") || strings.Contains(rec, secret) {
		t.Fatalf("drift record (want ids only, no values):\n%s", rec)
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

// TestDriftAlarmCannotBeSilencedByEditingTheIssue (issue 20, attack 1):
// a writer edits Kyku's drift issue — an "all clear", with the fingerprint
// of the drift they are about to make planted in it — then changes the
// cloud. Kyku reads what it last reported from the backend: the new drift
// is announced, and the issue says again what drifted. The same drift
// found in an edited issue is written again, with a comment saying so.
func TestDriftAlarmCannotBeSilencedByEditingTheIssue(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	cfg := parse(t, configV1)
	if _, err := f.workspace().Engine.Apply(ctx, cfg, engine.ApplyOptions{AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	check := func() *review.DriftOutcome {
		t.Helper()
		out, err := review.Drift(ctx, f.deps, review.DriftRequest{Settings: f.settings, Config: cfg})
		if err != nil {
			t.Fatalf("Drift: %v", err)
		}
		return out
	}
	f.editVm(func(p map[string]any) { p["size"] = "xlarge" })
	if out := check(); !out.Notified {
		t.Fatalf("first drift: %+v", out)
	}
	issue := f.srv.Issues(repoName)[0]

	// The fingerprint of the drift the writer is about to make, found on
	// a copy of the world with that change made.
	twin := newFixture(t)
	if _, err := twin.workspace().Engine.Apply(ctx, cfg, engine.ApplyOptions{AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	twin.editVm(func(p map[string]any) { p["size"], p["image"] = "xlarge", "debian-13" })
	future, err := review.Drift(ctx, twin.deps, review.DriftRequest{Settings: twin.settings, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	allClear := render.DriftMarker("", env) + "\nAll clear, nothing to see.\n<!-- kyku:drift-fingerprint " + future.Fingerprint + " ids= -->\n"
	f.srv.EditIssue(repoName, issue.Number, "mallory", allClear)
	f.editVm(func(p map[string]any) { p["image"] = "debian-13" })
	out := check()
	if !out.Notified || out.Fingerprint != future.Fingerprint || len(out.New) != 1 {
		t.Fatalf("new drift behind an edited issue: %+v (planted %s)", out, future.Fingerprint)
	}
	body := f.srv.Issues(repoName)[0].Body
	contains(t, "issue", body, "`debian-13`", "`xlarge`")

	// The same drift, the issue edited again: written again, with a comment.
	f.srv.EditIssue(repoName, issue.Number, "mallory", allClear)
	if out := check(); !out.Notified {
		t.Fatalf("the same drift in an edited issue: %+v", out)
	}
	comments := f.srv.Comments(repoName, issue.Number)
	contains(t, "last comment", comments[len(comments)-1].Body, "This issue was edited")
	contains(t, "issue", f.srv.Issues(repoName)[0].Body, "`debian-13`")
	if out := check(); out.Notified {
		t.Errorf("the same drift in the issue as Kyku wrote it notified: %+v", out)
	}
}
