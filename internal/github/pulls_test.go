package github

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/permission"
)

func TestPullRequest(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	f.srv.AddPullRequest(repoName, githubtest.PullRequest{Number: 7, User: "alice", HeadSHA: "abc", HeadRef: "feat", Draft: true})
	f.srv.AddPullRequest(repoName, githubtest.PullRequest{Number: 8, User: "mallory", HeadSHA: "def", HeadRef: "main", HeadRepo: "mallory/infra"})
	f.srv.AddPullRequest(repoName, githubtest.PullRequest{Number: 9, User: "bob", HeadSHA: "123", HeadRef: "x", State: "closed", Merged: true})
	base := f.srv.URL + "/acme/infra/pull/"
	tests := []struct {
		number int
		want   PR
	}{
		{7, PR{Number: 7, State: "open", Draft: true, HeadSHA: "abc", HeadRef: "feat", BaseRef: "main", Author: "alice", HeadRepoFullName: "acme/infra", HTMLURL: base + "7"}},
		{8, PR{Number: 8, State: "open", HeadSHA: "def", HeadRef: "main", BaseRef: "main", Author: "mallory", HeadRepoFullName: "mallory/infra", IsFork: true, HTMLURL: base + "8"}},
		{9, PR{Number: 9, State: "closed", Merged: true, HeadSHA: "123", HeadRef: "x", BaseRef: "main", Author: "bob", HeadRepoFullName: "acme/infra", HTMLURL: base + "9"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.number), func(t *testing.T) {
			got, err := f.repo.PullRequest(ctx, tt.number)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("PR (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		_, err := f.repo.PullRequest(ctx, 404)
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("err = %v, want ErrNotFound", err)
		}
	})
}

func TestPullRequestsForCommit(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	f.srv.AddPullRequest(repoName, githubtest.PullRequest{Number: 3, User: "alice", HeadSHA: "h3", State: "closed", Merged: true})
	f.srv.SetCommitPulls(repoName, "merge1", 3)
	got, err := f.repo.PullRequestsForCommit(ctx, "merge1")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Number != 3 || !got[0].Merged || got[0].HeadSHA != "h3" {
		t.Errorf("got %+v, want merged PR #3 at h3", got)
	}
	none, err := f.repo.PullRequestsForCommit(ctx, "direct-push")
	if err != nil || len(none) != 0 {
		t.Errorf("direct push: got %v, %v; want no PR", none, err)
	}
}

func TestChangedFilesPaginates(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	var files []string
	for i := range 250 {
		files = append(files, fmt.Sprintf("infra/f%03d.yaml", i))
	}
	pr := f.srv.AddPullRequest(repoName, githubtest.PullRequest{User: "alice", HeadSHA: "s", Files: files})
	got, err := f.repo.ChangedFiles(ctx, pr)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(files, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if n := f.srv.CountRequests("GET", "/files"); n != 3 {
		t.Errorf("%d page requests, want 3 (100 per page)", n)
	}
}

func TestReviewsPaginate(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	pr := f.srv.AddPullRequest(repoName, githubtestPR(0, "h"))
	f.srv.AddReview(repoName, pr, githubtest.Review{User: "bob", State: "APPROVED", CommitID: "h", SubmittedAt: epoch})
	for range 120 {
		f.srv.AddReview(repoName, pr, githubtest.Review{User: "carol", State: "COMMENTED", CommitID: "h"})
	}
	f.srv.AddReview(repoName, pr, githubtest.Review{User: "renovate", UserType: "Bot", State: "APPROVED", CommitID: "h"})
	got, err := f.repo.Reviews(ctx, pr)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 122 {
		t.Fatalf("%d reviews, want 122 over two pages", len(got))
	}
	first, last := got[0], got[121]
	if first.User != "bob" || first.State != "APPROVED" || first.CommitID != "h" || !first.SubmittedAt.Equal(epoch) || first.UserType != "User" {
		t.Errorf("first review = %+v", first)
	}
	if last.User != "renovate" || last.UserType != "Bot" {
		t.Errorf("last review = %+v, want renovate of type Bot", last)
	}
	if n := f.srv.CountRequests("GET", "/reviews"); n != 2 {
		t.Errorf("%d page requests, want 2", n)
	}
}

func TestPullRequestCommits(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	var commits []githubtest.Commit
	for i := range 130 {
		commits = append(commits, githubtest.Commit{SHA: fmt.Sprintf("c%03d", i), Author: "alice", Committer: "web-flow"})
	}
	commits[129] = githubtest.Commit{SHA: "c129", Author: "", Committer: "bob"}
	pr := f.srv.AddPullRequest(repoName, githubtest.PullRequest{User: "alice", HeadSHA: "c129", Commits: commits})
	got, err := f.repo.PullRequestCommits(ctx, pr)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 130 || got[0] != (Commit{SHA: "c000", Author: "alice", Committer: "web-flow"}) || got[129] != (Commit{SHA: "c129", Committer: "bob"}) {
		t.Errorf("commits: %d, first %+v, last %+v", len(got), got[0], got[len(got)-1])
	}
}

func TestPermission(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	for _, role := range []string{"admin", "maintain", "write", "triage", "read"} {
		f.srv.SetPermission(repoName, role+"-user", role)
	}
	f.srv.SetPermission(repoName, "custom-user", "security-auditor")
	tests := []struct {
		user string
		want permission.Level
	}{
		{"admin-user", "admin"},
		{"maintain-user", "maintain"},
		{"write-user", "write"},
		{"triage-user", "triage"},
		{"read-user", "read"},
		{"custom-user", "read"}, // custom role: its base permission
		{"stranger", "none"},
	}
	for _, tt := range tests {
		t.Run(tt.user, func(t *testing.T) {
			got, err := f.repo.Permission(ctx, tt.user)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Permission(%s) = %q, want %q", tt.user, got, tt.want)
			}
		})
	}
}
