package github

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-cmp/cmp"
	gh "github.com/google/go-github/v88/github"
	"github.com/kyku/action/internal/github/githubtest"
)

// TestListInstallationsAndRepos lists the App's installations with its JWT
// and each installation's repositories with that installation's token,
// across pages.
func TestListInstallationsAndRepos(t *testing.T) {
	ctx := t.Context()
	srv := githubtest.NewServer(t)
	key, pemBytes := rsaKey(t)
	srv.SetApp(42, &key.PublicKey, "kyku[bot]")
	srv.AddRepo("acme/infra", "trunk")
	created := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	srv.SetRepoID("acme/infra", 4711, created)
	srv.SetRepoID("acme/old", 4712, time.Time{})
	srv.SetArchived("acme/old", true)
	srv.AddInstallation(7, "acme", "acme/infra", "acme/old")
	var many []string
	for i := range 105 {
		many = append(many, fmt.Sprintf("big/r%03d", i))
	}
	srv.AddInstallation(8, "big", many...)

	apps, err := ghinstallation.NewAppsTransport(http.DefaultTransport, 42, pemBytes)
	if err != nil {
		t.Fatal(err)
	}
	apps.BaseURL = strings.TrimSuffix(srv.APIURL(), "/")
	appClient, err := NewClient(ctx, srv.APIURL(), &http.Client{Transport: apps})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ListInstallations(ctx, appClient)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Installation{{ID: 7, Account: "acme"}, {ID: 8, Account: "big"}}, got); diff != "" {
		t.Errorf("installations (-want +got):\n%s", diff)
	}
	if login, err := AppLogin(ctx, appClient); err != nil || login != "kyku[bot]" {
		t.Errorf("AppLogin = %q, %v; want kyku[bot] (GET /app's slug)", login, err)
	}

	reposOf := func(id int64) ([]RepoRef, error) {
		client, err := NewClient(ctx, srv.APIURL(), &http.Client{Transport: ghinstallation.NewFromAppsTransport(apps, id)})
		if err != nil {
			t.Fatal(err)
		}
		return ListInstallationRepos(ctx, client)
	}
	repos, err := reposOf(7)
	if err != nil {
		t.Fatal(err)
	}
	want := []RepoRef{
		{ID: 4711, Owner: "acme", Name: "infra", DefaultBranch: "trunk", Created: created},
		{ID: 4712, Owner: "acme", Name: "old", DefaultBranch: "main", Archived: true},
	}
	if diff := cmp.Diff(want, repos); diff != "" {
		t.Errorf("repositories of installation 7 (-want +got):\n%s", diff)
	}
	repos, err = reposOf(8)
	if err != nil {
		t.Fatal(err)
	}
	if len(repos) != 105 || repos[104].FullName() != "big/r104" {
		t.Errorf("installation 8: %d repositories (last %v), want all 105 across pages", len(repos), repos[len(repos)-1])
	}
	if n := srv.CountRequests("GET", "/installation/repositories"); n != 3 {
		t.Errorf("%d repository list requests, want 3 (one page, then two)", n)
	}

	t.Run("an installation token cannot list installations", func(t *testing.T) {
		client, err := NewClient(ctx, srv.APIURL(), nil, gh.WithAuthToken(srv.IssuedTokens()[0]))
		if err != nil {
			t.Fatal(err)
		}
		_, err = ListInstallations(ctx, client)
		if err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("err = %v, want a 401", err)
		}
	})
	t.Run("a token of no installation cannot list repositories", func(t *testing.T) {
		client, err := NewClient(ctx, srv.APIURL(), nil, gh.WithAuthToken(githubtest.Token))
		if err != nil {
			t.Fatal(err)
		}
		_, err = ListInstallationRepos(ctx, client)
		if err == nil || !strings.Contains(err.Error(), "403") {
			t.Errorf("err = %v, want a 403", err)
		}
	})
}
