package github

import (
	"context"
	"fmt"
	"time"

	gh "github.com/google/go-github/v88/github"
)

// Installation is one installation of a GitHub App.
type Installation struct {
	ID      int64
	Account string // the user or organisation login
}

// RepoRef is a repository an installation can access.
type RepoRef struct {
	ID            int64 // the repository's numeric ID (it survives renames)
	Owner, Name   string
	DefaultBranch string
	Archived      bool
	Created       time.Time // when GitHub created it
}

// FullName is "owner/name".
func (r RepoRef) FullName() string { return r.Owner + "/" + r.Name }

// ListInstallations lists the App's installations, every page. client must
// authenticate as the App (an App JWT: ghinstallation.AppsTransport).
func ListInstallations(ctx context.Context, client *gh.Client) ([]Installation, error) {
	var out []Installation
	opts := &gh.ListOptions{PerPage: perPage}
	for {
		page, resp, err := client.Apps.ListInstallations(ctx, opts)
		if err != nil {
			return nil, wrapList(resp, err, "list app installations")
		}
		for _, in := range page {
			out = append(out, Installation{ID: in.GetID(), Account: in.GetAccount().GetLogin()})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// ListInstallationRepos lists the repositories the installation whose token
// client carries can access, every page.
func ListInstallationRepos(ctx context.Context, client *gh.Client) ([]RepoRef, error) {
	var out []RepoRef
	opts := &gh.ListOptions{PerPage: perPage}
	for {
		page, resp, err := client.Apps.ListRepos(ctx, opts)
		if err != nil {
			return nil, wrapList(resp, err, "list installation repositories")
		}
		for _, r := range page.Repositories {
			out = append(out, RepoRef{
				ID: r.GetID(), Owner: r.GetOwner().GetLogin(), Name: r.GetName(),
				DefaultBranch: r.GetDefaultBranch(), Archived: r.GetArchived(), Created: r.GetCreatedAt().Time,
			})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

func wrapList(resp *gh.Response, err error, what string) error {
	if resp != nil && resp.Response != nil && resp.StatusCode == 404 {
		return fmt.Errorf("%s: %w: %w", what, ErrNotFound, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}
