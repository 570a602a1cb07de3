package github

import (
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kyku/action/internal/github/githubtest"
)

func TestCheckRunTruncatesToGitHubLimits(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	// The fake answers 422 past these limits, as GitHub does.
	name := "kyku plan (" + strings.Repeat("é", 300) + "/prod)"
	text := strings.Repeat("x", 70000)
	id, err := f.repo.CreateCheck(ctx, "abc", CheckRun{Name: name, Status: CheckInProgress, Title: "Planning", Summary: "running", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	runs := f.srv.CheckRuns(repoName)
	if len(runs) != 1 || runs[0].ID != id {
		t.Fatalf("check runs = %+v", runs)
	}
	got := runs[0]
	if n := utf8.RuneCountInString(got.Name); n != MaxCheckNameChars || !strings.HasPrefix(got.Name, "kyku plan (é") {
		t.Errorf("name has %d chars (%q...), want %d", n, got.Name[:20], MaxCheckNameChars)
	}
	if n := utf8.RuneCountInString(got.Text); n != MaxCheckOutputChars || !strings.HasSuffix(got.Text, "(truncated)") {
		t.Errorf("text has %d chars, want %d ending with a truncation note", n, MaxCheckOutputChars)
	}

	if err := f.repo.UpdateCheck(ctx, id, CheckRun{Name: "kyku plan (app/prod)", Status: CheckCompleted, Conclusion: CheckSuccess, Title: "1 to add", Summary: "summary", Text: "details"}); err != nil {
		t.Fatal(err)
	}
	got = f.srv.CheckRuns(repoName)[0]
	if got.Status != "completed" || got.Conclusion != "success" || got.Title != "1 to add" || got.Text != "details" {
		t.Errorf("updated check run = %+v", got)
	}
	if err := f.repo.UpdateCheck(ctx, id+1000, CheckRun{Name: "x", Status: CheckCompleted, Conclusion: CheckSuccess, Title: "t", Summary: "s"}); err == nil {
		t.Error("update of a missing check run succeeded")
	}
}

func TestCheckRunShortNameUntouched(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	if _, err := f.repo.CreateCheck(ctx, "abc", CheckRun{Name: "kyku plan (app/prod)", Status: CheckQueued}); err != nil {
		t.Fatal(err)
	}
	if got := f.srv.CheckRuns(repoName)[0]; got.Name != "kyku plan (app/prod)" || got.Status != "queued" {
		t.Errorf("check run = %+v", got)
	}
}

// TestParseCheckConclusion: a workflow run's conclusion becomes a check
// run's as it is when a check run can have it; otherwise it is not one.
func TestParseCheckConclusion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want CheckConclusion
		ok   bool
	}{
		{"success", CheckSuccess, true},
		{"failure", CheckFailure, true},
		{"cancelled", CheckCancelled, true},
		{"timed_out", CheckTimedOut, true},
		{"action_required", CheckActionRequired, true},
		{"neutral", CheckNeutral, true},
		{"skipped", CheckSkipped, true},
		{"stale", CheckStale, true},
		{"startup_failure", "", false},
		{"", "", false},
		{"Success", "", false},
	} {
		if got, ok := ParseCheckConclusion(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("ParseCheckConclusion(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestHeadArrivedIsTheOldestSuite: when GitHub first held a commit is the
// oldest created_at of its check suites, over every page and whatever app
// made them; a commit with none, or a token that may not read checks,
// cannot tell (zero); a rate limit or a server error is an error, not
// "cannot tell".
func TestHeadArrivedIsTheOldestSuite(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	t0 := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	for i := range 150 { // two pages of 100
		f.srv.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: "abc", AppSlug: "app-" + strconv.Itoa(i), Created: t0.Add(time.Duration(150-i) * time.Minute)})
	}
	f.srv.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: "def", AppSlug: "kyku", Created: t0.Add(-time.Hour)}) // another commit's
	got, err := f.repo.HeadArrived(ctx, "abc")
	if err != nil {
		t.Fatal(err)
	}
	if want := t0.Add(time.Minute); !got.Equal(want) { // the last added, on the second page
		t.Errorf("HeadArrived(abc) = %v, want %v", got, want)
	}
	if got, err := f.repo.HeadArrived(ctx, "0123"); err != nil || !got.IsZero() {
		t.Errorf("HeadArrived of a commit without suites = %v, %v; want zero, nil", got, err)
	}

	f.srv.FailNext(10, githubtest.Fail502, 0) // past the retries
	if _, err := f.repo.HeadArrived(ctx, "abc"); err == nil {
		t.Error("a 502 was taken as an answer")
	}
	f.srv.FailNext(10, githubtest.FailPrimary403, time.Second)
	if got, err := f.repo.HeadArrived(ctx, "abc"); err == nil {
		t.Errorf("a rate limit's 403 was taken as no checks permission: %v", got)
	}

	f = newFixture(t) // no failures left queued
	f.srv.AddCheckSuite(repoName, githubtest.CheckSuite{HeadSHA: "abc", AppSlug: "kyku", Created: t0})
	f.srv.DenyCheckReads(githubtest.TokenUser)
	if got, err := f.repo.HeadArrived(ctx, "abc"); err != nil || !got.IsZero() {
		t.Errorf("HeadArrived without checks: read = %v, %v; want zero, nil", got, err)
	}
}

// TestForcePushedAfterIsTheLatestForcePush: the latest head_ref_force_pushed
// event after the given time, over every page; other events, and force
// pushes up to that time, do not count; an unknown pull request is an
// error.
func TestForcePushedAfterIsTheLatestForcePush(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	pr := f.srv.AddPullRequest(repoName, githubtestPR(7, "sha7"))
	t0 := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	for i := range 120 { // two pages
		f.srv.AddIssueEvent(repoName, pr, githubtest.IssueEvent{Event: "labeled", Actor: "bob", Created: t0.Add(time.Duration(i) * time.Hour)})
	}
	f.srv.AddIssueEvent(repoName, pr, githubtest.IssueEvent{Event: "head_ref_force_pushed", Actor: "mallory", Created: t0.Add(-time.Minute)})
	if got, err := f.repo.ForcePushedAfter(ctx, pr, t0); err != nil || !got.IsZero() {
		t.Errorf("ForcePushedAfter with a force-push before = %v, %v; want zero, nil", got, err)
	}
	f.srv.AddIssueEvent(repoName, pr, githubtest.IssueEvent{Event: "head_ref_force_pushed", Actor: "mallory", Created: t0.Add(5 * time.Second)})
	f.srv.AddIssueEvent(repoName, pr, githubtest.IssueEvent{Event: "head_ref_force_pushed", Actor: "mallory", Created: t0.Add(3 * time.Second)})
	got, err := f.repo.ForcePushedAfter(ctx, pr, t0)
	if err != nil {
		t.Fatal(err)
	}
	if want := t0.Add(5 * time.Second); !got.Equal(want) {
		t.Errorf("ForcePushedAfter = %v, want %v", got, want)
	}
	if _, err := f.repo.ForcePushedAfter(ctx, 99, t0); err == nil {
		t.Error("the events of an unknown pull request were read")
	}
}

// TestBranchPushedAfterIsTheLatestChange: the latest change to the branch
// after the given time, whatever its kind, over every page of GitHub's
// cursor; other branches' and earlier changes do not count; a repository
// this token cannot see cannot tell (ok false); a server error is an
// error.
func TestBranchPushedAfterIsTheLatestChange(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	t0 := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	f.srv.AddActivity(repoName, githubtest.Activity{Ref: "refs/heads/feature", Type: "branch_creation", At: t0.Add(-time.Hour)})
	for i := range 150 { // more than a page, all after t0
		f.srv.AddActivity(repoName, githubtest.Activity{Ref: "refs/heads/feature", Type: "push", At: t0.Add(time.Duration(i+1) * time.Second)})
	}
	f.srv.AddActivity(repoName, githubtest.Activity{Ref: "refs/heads/other", Type: "push", At: t0.Add(time.Hour)})
	got, ok, err := f.repo.BranchPushedAfter(ctx, repoName, "feature", t0)
	if err != nil || !ok {
		t.Fatalf("BranchPushedAfter = %v, %v, %v", got, ok, err)
	}
	if want := t0.Add(150 * time.Second); !got.Equal(want) {
		t.Errorf("BranchPushedAfter = %v, want %v", got, want)
	}
	if got, ok, err := f.repo.BranchPushedAfter(ctx, repoName, "feature", t0.Add(time.Hour)); err != nil || !ok || !got.IsZero() {
		t.Errorf("BranchPushedAfter with nothing since = %v, %v, %v; want zero, true, nil", got, ok, err)
	}
	f.srv.AddActivity(repoName, githubtest.Activity{Ref: "refs/heads/feature", Type: "force_push", At: t0.Add(2 * time.Hour)})
	if got, _, _ := f.repo.BranchPushedAfter(ctx, repoName, "feature", t0.Add(time.Hour)); !got.Equal(t0.Add(2 * time.Hour)) {
		t.Errorf("a force-push = %v, want %v", got, t0.Add(2*time.Hour))
	}
	if got, ok, err := f.repo.BranchPushedAfter(ctx, "mallory/infra", "feature", t0); err != nil || ok || !got.IsZero() {
		t.Errorf("BranchPushedAfter of a repository it cannot see = %v, %v, %v; want zero, false, nil", got, ok, err)
	}
	f.srv.FailNext(10, githubtest.Fail502, 0)
	if _, _, err := f.repo.BranchPushedAfter(ctx, repoName, "feature", t0); err == nil {
		t.Error("a 502 was taken as an answer")
	}
}
