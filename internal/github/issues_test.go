package github

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/github/githubtest"
)

func TestDriftIssueLifecycle(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	const label, driftMarker = "kyku-drift", "<!-- kyku:drift prod -->"
	// Decoys: another environment's issue, an unlabelled one, and a PR.
	f.srv.AddIssue(repoName, githubtest.Issue{Title: "drift staging", Body: "<!-- kyku:drift staging -->", Labels: []string{label}})
	f.srv.AddIssue(repoName, githubtest.Issue{Title: "mentions", Body: driftMarker})
	// A stranger's issue carrying the label and marker is never Kyku's.
	f.srv.AddIssue(repoName, githubtest.Issue{Title: "drift prod", Body: driftMarker, Labels: []string{label}, User: "mallory"})
	f.srv.AddPullRequest(repoName, githubtestPR(0, "s"))

	got, err := f.repo.FindOpenIssue(ctx, label, driftMarker)
	if err != nil || got != nil {
		t.Fatalf("FindOpenIssue before drift = %+v, %v; want nil, nil", got, err)
	}
	created, err := f.repo.CreateIssue(ctx, "Drift in prod", "1 drifted\n"+driftMarker, []string{label})
	if err != nil {
		t.Fatal(err)
	}
	found, err := f.repo.FindOpenIssue(ctx, label, driftMarker)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(created, found); diff != "" {
		t.Errorf("found issue (-created +found):\n%s", diff)
	}
	if err := f.repo.UpdateIssue(ctx, created.Number, "Drift in prod", "2 drifted\n"+driftMarker); err != nil {
		t.Fatal(err)
	}
	if err := f.repo.CloseIssue(ctx, created.Number, "Drift is gone."); err != nil {
		t.Fatal(err)
	}
	var issue githubtest.Issue
	for _, is := range f.srv.Issues(repoName) {
		if is.Number == created.Number {
			issue = is
		}
	}
	want := githubtest.Issue{Number: created.Number, Title: "Drift in prod", Body: "2 drifted\n" + driftMarker,
		State: "closed", StateReason: "completed", User: githubtest.TokenUser, Labels: []string{label}}
	if diff := cmp.Diff(want, issue); diff != "" {
		t.Errorf("issue (-want +got):\n%s", diff)
	}
	if c := f.srv.Comments(repoName, created.Number); len(c) != 1 || c[0].Body != "Drift is gone." {
		t.Errorf("closing comments = %+v", c)
	}
	if got, err := f.repo.FindOpenIssue(ctx, label, driftMarker); err != nil || got != nil {
		t.Errorf("FindOpenIssue after close = %+v, %v; want nil", got, err)
	}
	if !strings.HasSuffix(created.HTMLURL, "/acme/infra/issues/"+strconv.Itoa(created.Number)) {
		t.Errorf("html url = %q", created.HTMLURL)
	}
}
