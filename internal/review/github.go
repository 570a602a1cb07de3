package review

import (
	"context"
	"time"

	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/permission"
)

// What the rules need from GitHub, split by use: each function asks for
// the part it uses, and *github.Repo is all of them.
//
// Comments and Evidence must only ever see comments written by the
// account Kyku writes as (Upsert, MarkOutdated, OwnComments), and Issues
// only issues it wrote (FindOpenIssue): a comment or issue by anyone else
// that carries Kyku's marker is neither edited nor read.

// Comments answers on a pull request: plan comments, replies, reactions.
type Comments interface {
	Upsert(ctx context.Context, number int, marker, body string) (github.Comment, error)
	CreateComment(ctx context.Context, number int, body string) (string, error)
	PostComment(ctx context.Context, number int, body string) (github.Comment, error)
	MarkOutdated(ctx context.Context, number int, marker string, keepID int64) error
	React(ctx context.Context, commentID int64, content string) error
}

// Evidence reads back what Kyku posted: its own comments, and who last
// edited one and when.
type Evidence interface {
	OwnComments(ctx context.Context, number int, marker string) ([]github.Comment, error)
	LastEdit(ctx context.Context, c github.Comment) (github.Edit, error)
}

// Reviews is what judging a request needs: the pull request, its reviews
// and commits, and the permission and teams of the people involved.
type Reviews interface {
	PullRequest(ctx context.Context, number int) (*github.PR, error)
	Reviews(ctx context.Context, number int) ([]github.Review, error)
	PullRequestCommits(ctx context.Context, number int) ([]github.Commit, error)
	Permission(ctx context.Context, user string) (permission.Level, error)
	// TeamMember reports whether user is an active member of org/team
	// (false when the team cannot be seen: fail closed).
	TeamMember(ctx context.Context, org, team, user string) (bool, error)
	// HeadArrived is when GitHub first held commit sha, by its own clock
	// (zero: it cannot tell).
	HeadArrived(ctx context.Context, sha string) (time.Time, error)
	// ForcePushedAfter is the latest time pull request number's head
	// branch was force-pushed after since (zero: it was not).
	ForcePushedAfter(ctx context.Context, number int, since time.Time) (time.Time, error)
	// BranchPushedAfter is the latest change to branch of repository
	// fullName after since (zero: none); ok false when GitHub will not
	// say.
	BranchPushedAfter(ctx context.Context, fullName, branch string, since time.Time) (last time.Time, ok bool, err error)
}

// Merges finds the pull requests a commit of the default branch merged.
type Merges interface {
	PullRequestsForCommit(ctx context.Context, sha string) ([]github.PR, error)
}

// Issues keeps one drift issue per project and environment.
type Issues interface {
	FindOpenIssue(ctx context.Context, label, marker string) (*github.Issue, error)
	CreateIssue(ctx context.Context, title, body string, labels []string) (*github.Issue, error)
	UpdateIssue(ctx context.Context, number int, title, body string) error
	CloseIssue(ctx context.Context, number int, comment string) error
	CreateComment(ctx context.Context, number int, body string) (string, error)
}

// GitHub is every part: what Deps carries.
type GitHub interface {
	Comments
	Evidence
	Reviews
	Merges
	Files
	Issues
}

var _ GitHub = (*github.Repo)(nil)
