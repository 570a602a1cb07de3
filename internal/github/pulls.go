package github

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	gh "github.com/google/go-github/v88/github"

	"github.com/kyku/action/internal/permission"
)

// PR is what the use cases need of a pull request.
type PR struct {
	Number           int
	State            string // open or closed
	Merged           bool
	Draft            bool
	HeadSHA          string
	HeadRef          string
	BaseRef          string
	Author           string
	HeadRepoFullName string
	// IsFork is set when the head repository is not the base repository,
	// or is gone (a deleted fork): such a PR runs without secrets.
	IsFork  bool
	HTMLURL string
}

func toPR(p *gh.PullRequest) PR {
	head, base := p.GetHead(), p.GetBase()
	headRepo := head.GetRepo().GetFullName()
	return PR{
		Number:           p.GetNumber(),
		State:            p.GetState(),
		Merged:           p.GetMerged() || p.MergedAt != nil,
		Draft:            p.GetDraft(),
		HeadSHA:          head.GetSHA(),
		HeadRef:          head.GetRef(),
		BaseRef:          base.GetRef(),
		Author:           p.GetUser().GetLogin(),
		HeadRepoFullName: headRepo,
		IsFork:           headRepo == "" || !strings.EqualFold(headRepo, base.GetRepo().GetFullName()),
		HTMLURL:          p.GetHTMLURL(),
	}
}

// PullRequest fetches pull request number.
func (r *Repo) PullRequest(ctx context.Context, number int) (*PR, error) {
	p, resp, err := r.client.PullRequests.Get(ctx, r.owner, r.name, number)
	if err := r.done(resp, err, "get pull request #%d", number); err != nil {
		return nil, err
	}
	pr := toPR(p)
	return &pr, nil
}

// PullRequestsForCommit lists the pull requests associated with commit sha
// (on a push to the default branch: the merged PR).
func (r *Repo) PullRequestsForCommit(ctx context.Context, sha string) ([]PR, error) {
	var out []PR
	opts := &gh.ListOptions{PerPage: perPage}
	for {
		page, resp, err := r.client.PullRequests.ListPullRequestsWithCommit(ctx, r.owner, r.name, sha, opts)
		if err := r.done(resp, err, "list pull requests for commit %s", sha); err != nil {
			return nil, err
		}
		for _, p := range page {
			out = append(out, toPR(p))
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// ChangedFiles lists the paths pull request number touches; a rename lists
// both the old and the new path.
func (r *Repo) ChangedFiles(ctx context.Context, number int) ([]string, error) {
	var out []string
	opts := &gh.ListOptions{PerPage: perPage}
	for {
		page, resp, err := r.client.PullRequests.ListFiles(ctx, r.owner, r.name, number, opts)
		if err := r.done(resp, err, "list files of #%d", number); err != nil {
			return nil, err
		}
		for _, f := range page {
			if prev := f.GetPreviousFilename(); prev != "" && !slices.Contains(out, prev) {
				out = append(out, prev)
			}
			out = append(out, f.GetFilename())
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// Permission returns user's permission level on the repository: admin,
// maintain, write, triage, read or none. It prefers role_name when it names
// one of those levels (a custom role falls back to its base permission),
// and reads a 404 (not a user) as none.
func (r *Repo) Permission(ctx context.Context, user string) (permission.Level, error) {
	req, err := r.client.NewRequest(ctx, "GET", fmt.Sprintf("repos/%s/%s/collaborators/%s/permission", r.owner, r.name, user), nil)
	if err != nil {
		return "", fmt.Errorf("get permission of %s: %w", user, err)
	}
	var body struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	resp, err := r.client.Do(req, &body)
	if err := r.done(resp, err, "get permission of %s", user); err != nil {
		if errors.Is(err, ErrNotFound) {
			return permission.None, nil
		}
		return "", err
	}
	for _, v := range []string{body.RoleName, body.Permission} {
		if l, ok := permission.Parse(v); ok {
			return l, nil
		}
	}
	return permission.None, nil
}

// Parents lists the parents of commit sha, first parent first (a merge
// commit's first parent is the branch it was merged into, as it was).
func (r *Repo) Parents(ctx context.Context, sha string) ([]string, error) {
	c, resp, err := r.client.Repositories.GetCommit(ctx, r.owner, r.name, sha, nil)
	if err := r.done(resp, err, "get commit %s", sha); err != nil {
		return nil, err
	}
	var out []string
	for _, p := range c.Parents {
		out = append(out, p.GetSHA())
	}
	return out, nil
}
