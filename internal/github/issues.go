package github

import (
	"context"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v88/github"
)

// Issue is what the drift use case needs of an issue.
type Issue struct {
	Number  int
	HTMLURL string
	Body    string
}

func toIssue(i *gh.Issue) *Issue {
	return &Issue{Number: i.GetNumber(), HTMLURL: i.GetHTMLURL(), Body: i.GetBody()}
}

// FindOpenIssue returns the newest open issue opened by Self, labelled
// label, whose body contains marker, or nil when there is none. Pull
// requests and other people's issues are skipped.
func (r *Repo) FindOpenIssue(ctx context.Context, label, marker string) (*Issue, error) {
	self, err := r.Self(ctx)
	if err != nil {
		return nil, fmt.Errorf("find the issue %q: %w", label, err)
	}
	opts := &gh.IssueListByRepoOptions{State: "open", ListOptions: gh.ListOptions{PerPage: perPage}}
	if label != "" {
		opts.Labels = []string{label}
	}
	for {
		page, resp, err := r.client.Issues.ListByRepo(ctx, r.owner, r.name, opts)
		if err := r.done(resp, err, "list open issues labelled %q", label); err != nil {
			return nil, err
		}
		var found *gh.Issue
		for _, i := range page {
			if !i.IsPullRequest() && byself(self, i.GetUser()) && strings.Contains(i.GetBody(), marker) && (found == nil || i.GetNumber() > found.GetNumber()) {
				found = i
			}
		}
		if found != nil {
			return toIssue(found), nil
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opts.ListOptions.Page = resp.NextPage
	}
}

// CreateIssue opens an issue; GitHub creates missing labels.
func (r *Repo) CreateIssue(ctx context.Context, title, body string, labels []string) (*Issue, error) {
	req := &gh.IssueRequest{Title: gh.Ptr(title), Body: gh.Ptr(body)}
	if len(labels) > 0 {
		req.Labels = &labels
	}
	i, resp, err := r.client.Issues.Create(ctx, r.owner, r.name, req)
	if err := r.done(resp, err, "create issue %q", title); err != nil {
		return nil, err
	}
	return toIssue(i), nil
}

// UpdateIssue replaces the title and body of issue number.
func (r *Repo) UpdateIssue(ctx context.Context, number int, title, body string) error {
	_, resp, err := r.client.Issues.Edit(ctx, r.owner, r.name, number, &gh.IssueRequest{Title: gh.Ptr(title), Body: gh.Ptr(body)})
	return r.done(resp, err, "update issue #%d", number)
}

// CloseIssue comments on issue number (unless comment is empty) and closes
// it as completed.
func (r *Repo) CloseIssue(ctx context.Context, number int, comment string) error {
	if comment != "" {
		if _, err := r.createComment(ctx, number, comment); err != nil {
			return err
		}
	}
	_, resp, err := r.client.Issues.Edit(ctx, r.owner, r.name, number, &gh.IssueRequest{State: gh.Ptr("closed"), StateReason: gh.Ptr("completed")})
	return r.done(resp, err, "close issue #%d", number)
}
