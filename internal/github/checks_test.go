package github

import (
	"strings"
	"testing"
	"unicode/utf8"
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
