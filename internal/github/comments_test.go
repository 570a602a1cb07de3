package github

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/github/githubtest"
)

const marker = "<!-- kyku:plan prod -->"

func bodies(f fixture, number int) []string {
	var out []string
	for _, c := range f.srv.Comments(repoName, number) {
		out = append(out, c.Body)
	}
	return out
}

func TestUpsertCommentCreatesThenEditsInPlace(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	pr := f.srv.AddPullRequest(repoName, githubtestPR(1, "sha1"))
	f.srv.AddComment(repoName, pr, "alice", "looks good")

	url1, err := f.repo.UpsertComment(ctx, pr, marker, "plan: 1 to add\n"+marker)
	if err != nil {
		t.Fatal(err)
	}
	url2, err := f.repo.UpsertComment(ctx, pr, marker, "plan: 2 to add\n"+marker)
	if err != nil {
		t.Fatal(err)
	}
	if url1 != url2 || !strings.Contains(url1, "/acme/infra/pull/1#issuecomment-") {
		t.Errorf("urls = %q, %q; want the same comment's url", url1, url2)
	}
	want := []string{"looks good", "plan: 2 to add\n" + marker}
	if diff := cmp.Diff(want, bodies(f, pr)); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}

	f.srv.ResetRequests()
	if _, err := f.repo.UpsertComment(ctx, pr, marker, "plan: 2 to add\n"+marker); err != nil {
		t.Fatal(err)
	}
	if n := f.srv.CountRequests("PATCH", ""); n != 0 {
		t.Errorf("unchanged upsert sent %d PATCH requests, want none", n)
	}
	if n := f.srv.CountRequests("POST", ""); n != 0 {
		t.Errorf("unchanged upsert sent %d POST requests, want none", n)
	}
}

func TestUpsertCommentAppendsMarkerAndFindsItOnLaterPages(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	pr := f.srv.AddPullRequest(repoName, githubtestPR(0, "sha1"))
	if _, err := f.repo.UpsertComment(ctx, pr, marker, "first"); err != nil {
		t.Fatal(err)
	}
	for range 150 { // push the sticky comment off the first page
		f.srv.AddComment(repoName, pr, "bob", "chatter")
	}
	if _, err := f.repo.UpsertComment(ctx, pr, marker, "second"); err != nil {
		t.Fatal(err)
	}
	got := bodies(f, pr)
	if len(got) != 151 || got[0] != "second\n\n"+marker+"\n" {
		t.Errorf("got %d comments, first %q; want 151 with the sticky one edited", len(got), got[0])
	}
}

func TestMarkOutdated(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	pr := f.srv.AddPullRequest(repoName, githubtestPR(0, "sha1"))
	f.srv.AddComment(repoName, pr, githubtest.TokenUser, "old plan A\n"+marker)
	f.srv.AddComment(repoName, pr, "alice", "unrelated")
	f.srv.AddComment(repoName, pr, githubtest.TokenUser, "old plan B\n"+marker)
	newest, err := f.repo.Upsert(ctx, pr, marker, "new plan\n"+marker)
	if err != nil {
		t.Fatal(err)
	}
	// Upsert edited the newest marked comment (plan B) in place.
	if err := f.repo.MarkOutdated(ctx, pr, marker, newest.ID); err != nil {
		t.Fatal(err)
	}
	want := []string{
		OutdatedNote + "\n\n<details><summary>Previous content</summary>\n\nold plan A\n\n</details>\n",
		"unrelated",
		"new plan\n" + marker,
	}
	if diff := cmp.Diff(want, bodies(f, pr)); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}

	f.srv.ResetRequests()
	if err := f.repo.MarkOutdated(ctx, pr, marker, 0); err != nil {
		t.Fatal(err)
	}
	if n := f.srv.CountRequests("PATCH", ""); n != 0 {
		t.Errorf("second MarkOutdated sent %d edits, want none", n)
	}
}

func TestMarkOutdatedKeepsNewestByDefault(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	pr := f.srv.AddPullRequest(repoName, githubtestPR(0, "sha1"))
	for _, b := range []string{"one", "two", "three"} {
		if _, err := f.repo.CreateComment(ctx, pr, b+"\n"+marker); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.repo.MarkOutdated(ctx, pr, marker, 0); err != nil {
		t.Fatal(err)
	}
	got := bodies(f, pr)
	for i, b := range got {
		if outdated := strings.HasPrefix(b, OutdatedNote); outdated != (i < 2) {
			t.Errorf("comment %d outdated = %v: %q", i, outdated, b)
		}
	}
}

func TestReact(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	pr := f.srv.AddPullRequest(repoName, githubtestPR(0, "sha1"))
	id := f.srv.AddComment(repoName, pr, "alice", "/kyku apply")
	if err := f.repo.React(ctx, id, "eyes"); err != nil {
		t.Fatal(err)
	}
	got := f.srv.Comments(repoName, pr)[0].Reactions
	if len(got) != 1 || got[0].Content != "eyes" {
		t.Errorf("reactions = %v, want one eyes", got)
	}
	f.srv.ResetRequests()
	if err := f.repo.React(ctx, id, "thumbsup"); err == nil {
		t.Error("unknown reaction accepted")
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("unknown reaction sent %d requests", n)
	}
	if err := f.repo.React(ctx, 999999, "eyes"); err == nil || !strings.Contains(err.Error(), "react") {
		t.Errorf("reaction to a missing comment: err = %v", err)
	}
}

// TestStrangersMarkedCommentIsNeverTouched: a comment by someone else that
// carries Kyku's marker (copied from a real plan comment) is not edited by
// Upsert, not folded by MarkOutdated and not returned by OwnComments; Kyku
// writes its own comment beside it.
func TestStrangersMarkedCommentIsNeverTouched(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	pr := f.srv.AddPullRequest(repoName, githubtestPR(0, "sha1"))
	fake := "plan: nothing to worry about\n" + marker
	stranger := f.srv.AddComment(repoName, pr, "mallory", fake)
	own, err := f.repo.Upsert(ctx, pr, marker, "plan: 3 to destroy\n"+marker)
	if err != nil {
		t.Fatal(err)
	}
	if own.ID == stranger {
		t.Fatal("Upsert edited the stranger's comment")
	}
	if err := f.repo.MarkOutdated(ctx, pr, marker, own.ID); err != nil {
		t.Fatal(err)
	}
	got, err := f.repo.OwnComments(ctx, pr, marker)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != own.ID || !strings.Contains(got[0].Body, "3 to destroy") {
		t.Errorf("OwnComments = %+v, want only Kyku's", got)
	}
	want := []string{fake, "plan: 3 to destroy\n" + marker}
	if diff := cmp.Diff(want, bodies(f, pr)); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}
	if n := f.srv.CountRequests("PATCH", "/issues/comments/"+strconv.FormatInt(stranger, 10)); n != 0 {
		t.Errorf("%d edits of the stranger's comment", n)
	}
}

// TestSelf (issue 20, attack 3): the account Kyku writes as, per kind of
// token, from the token itself (GraphQL viewer): the workflow's
// GITHUB_TOKEN, an App's installation token (GET /user answers 403 to
// it, as to every installation token) and a person's token.
func TestSelf(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	if got, err := f.repo.Self(ctx); err != nil || got != ActionsBot {
		t.Errorf("Self with GITHUB_TOKEN = %q, %v; want %s", got, err, ActionsBot)
	}
	for _, tc := range []struct{ token, login string }{
		{"ghs_app_installation", "deploy-app[bot]"},
		{"ghp_person", "octocat"},
	} {
		f.srv.AddToken(tc.token, tc.login)
		repo := f.repoWith(t, tc.token)
		if got, err := repo.Self(ctx); err != nil || got != tc.login {
			t.Errorf("Self with %s = %q, %v; want %s", tc.token, got, err, tc.login)
		}
	}
	person := f.repoWith(t, "ghp_person")
	person.SetSelf("kyku[bot]")
	if got, _ := person.Self(ctx); got != "kyku[bot]" {
		t.Errorf("Self after SetSelf = %q", got)
	}
}

// TestSelfFromTheFirstComment: an installation token that may not use
// GraphQL (and is refused GET /user) is not taken for github-actions[bot]:
// reading Kyku's comments fails closed, and the sticky comment's first
// upsert learns the account from the comment it creates, so the next
// upsert edits it, and a github-actions[bot] look-alike is never taken.
func TestSelfFromTheFirstComment(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	f.srv.AddToken("ghs_app_installation", "deploy-app[bot]")
	f.srv.DenyGraphQL("deploy-app[bot]")
	pr := f.srv.AddPullRequest(repoName, githubtestPR(0, "abc"))
	lookalike := f.srv.AddComment(repoName, pr, ActionsBot, "plan: nothing to do\n"+marker)
	repo := f.repoWith(t, "ghs_app_installation")
	if _, err := repo.OwnComments(ctx, pr, marker); !errors.Is(err, ErrNoIdentity) {
		t.Fatalf("OwnComments with an unknown identity: %v, want ErrNoIdentity", err)
	}
	first, err := repo.Upsert(ctx, pr, marker, "plan: 1 to create\n"+marker)
	if err != nil || first.Author != "deploy-app[bot]" {
		t.Fatalf("first Upsert: %+v, %v", first, err)
	}
	second, err := repo.Upsert(ctx, pr, marker, "plan: 2 to create\n"+marker)
	if err != nil || second.ID != first.ID {
		t.Fatalf("second Upsert: %+v, %v; want comment %d edited", second, err, first.ID)
	}
	own, err := repo.OwnComments(ctx, pr, marker)
	if err != nil || len(own) != 1 || own[0].ID != first.ID {
		t.Errorf("OwnComments = %+v, %v; want only Kyku's comment, not the look-alike %d", own, err, lookalike)
	}
}

// TestSelfNamedWrongIsCaught: told the wrong account (an input naming
// github-actions[bot] for an App's token), the first comment Kyku creates
// shows who really wrote it: an error, not a silent takeover of the
// look-alike's comments.
func TestSelfNamedWrongIsCaught(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	f.srv.AddToken("ghs_app_installation", "deploy-app[bot]")
	pr := f.srv.AddPullRequest(repoName, githubtestPR(0, "abc"))
	repo := f.repoWith(t, "ghs_app_installation")
	repo.SetSelf(ActionsBot)
	if _, err := repo.Upsert(ctx, pr, marker, "plan\n"+marker); !errors.Is(err, ErrWrongIdentity) {
		t.Errorf("Upsert as the wrong account: %v, want ErrWrongIdentity", err)
	}
}

// TestLastEdit: who last edited a comment and when, from GraphQL.
func TestLastEdit(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	pr := f.srv.AddPullRequest(repoName, githubtestPR(0, "abc"))
	c, err := f.repo.Upsert(ctx, pr, marker, "plan\n"+marker)
	if err != nil {
		t.Fatal(err)
	}
	if e, err := f.repo.LastEdit(ctx, c); err != nil || e != (Edit{}) {
		t.Errorf("LastEdit of a fresh comment = %+v, %v; want none", e, err)
	}
	f.srv.EditComment(repoName, c.ID, "mallory", "plan: nothing\n"+marker)
	if e, err := f.repo.LastEdit(ctx, c); err != nil || e.Editor != "mallory" || !e.EditedAt.Equal(epoch) {
		t.Errorf("LastEdit after mallory's edit = %+v, %v", e, err)
	}
	if _, err := f.repo.LastEdit(ctx, Comment{ID: 1, NodeID: "IC_kwDO1"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("LastEdit of an unknown node: %v, want ErrNotFound", err)
	}
}

// TestParents: a commit's parents, first parent first.
func TestParents(t *testing.T) {
	f := newFixture(t)
	f.srv.AddCommit(repoName, githubtest.GitCommit{SHA: "m", Parents: []string{"base", "head"}})
	if got, err := f.repo.Parents(t.Context(), "m"); err != nil || !slices.Equal(got, []string{"base", "head"}) {
		t.Errorf("Parents = %v, %v", got, err)
	}
	if _, err := f.repo.Parents(t.Context(), "unknown"); err == nil {
		t.Error("Parents of an unknown commit succeeded")
	}
}
