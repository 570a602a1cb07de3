package github

import (
	"context"
	"strings"
	"time"

	gh "github.com/google/go-github/v88/github"
)

// Review is one review of a pull request, as GitHub lists it.
type Review struct {
	ID          int64
	User        string // the reviewer's login
	UserType    string // "User", "Bot", "Organization"
	State       string // APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING (upper case)
	CommitID    string // the head commit the review was submitted on
	SubmittedAt time.Time
}

// Reviews lists every review of pull request number, every page, in the
// order GitHub gives them (chronological). Deciding what counts as an
// approval is the caller's (package review's) rule.
func (r *Repo) Reviews(ctx context.Context, number int) ([]Review, error) {
	var out []Review
	opts := &gh.ListOptions{PerPage: perPage}
	for {
		page, resp, err := r.client.PullRequests.ListReviews(ctx, r.owner, r.name, number, opts)
		if err := r.done(resp, err, "list reviews of #%d", number); err != nil {
			return nil, err
		}
		for _, rv := range page {
			out = append(out, Review{
				ID: rv.GetID(), User: rv.GetUser().GetLogin(), UserType: rv.GetUser().GetType(),
				State: strings.ToUpper(rv.GetState()), CommitID: rv.GetCommitID(), SubmittedAt: rv.GetSubmittedAt().Time,
			})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// MaxPullRequestCommits is how many commits GitHub lists for a pull
// request at most; a longer list is cut, so a caller that must see every
// commit fails closed when it gets this many.
const MaxPullRequestCommits = 250

// Commit is one commit of a pull request with the GitHub accounts GitHub
// linked to its author and committer ("" when the commit's e-mail address
// belongs to no account).
type Commit struct {
	SHA       string
	Author    string
	Committer string
}

// PullRequestCommits lists the commits of pull request number, every page
// (at most MaxPullRequestCommits: GitHub's own limit).
func (r *Repo) PullRequestCommits(ctx context.Context, number int) ([]Commit, error) {
	var out []Commit
	opts := &gh.ListOptions{PerPage: perPage}
	for {
		page, resp, err := r.client.PullRequests.ListCommits(ctx, r.owner, r.name, number, opts)
		if err := r.done(resp, err, "list commits of #%d", number); err != nil {
			return nil, err
		}
		for _, c := range page {
			out = append(out, Commit{SHA: c.GetSHA(), Author: c.GetAuthor().GetLogin(), Committer: c.GetCommitter().GetLogin()})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}
