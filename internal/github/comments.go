package github

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	gh "github.com/google/go-github/v88/github"
)

// OutdatedNote heads a comment MarkOutdated superseded.
const OutdatedNote = "> [!NOTE]\n> Outdated: superseded by a newer plan."

// Comment is an issue or pull request comment as GitHub answered it.
type Comment struct {
	ID        int64
	NodeID    string // its GraphQL ID (LastEdit)
	HTMLURL   string
	Body      string
	Author    string
	UpdatedAt time.Time // GitHub's updated_at: moves on every edit, by anyone
}

func toComment(c *gh.IssueComment) Comment {
	return Comment{
		ID: c.GetID(), NodeID: c.GetNodeID(), HTMLURL: c.GetHTMLURL(), Body: c.GetBody(),
		Author: c.GetUser().GetLogin(), UpdatedAt: c.GetUpdatedAt().Time,
	}
}

// UpsertComment keeps one sticky comment per marker on issue or pull
// request number and returns its URL; see Upsert.
func (r *Repo) UpsertComment(ctx context.Context, number int, marker, body string) (string, error) {
	c, err := r.Upsert(ctx, number, marker, body)
	return c.HTMLURL, err
}

// Upsert finds the newest comment on number written by Self whose body
// contains marker and edits it to body, skipping the edit when the body is
// unchanged; without one it creates the comment. A comment by anyone else
// is never edited, whatever it carries. The marker (a hidden HTML comment such as
// "<!-- kyku:plan prod -->") is appended to body when body lacks it, so the
// comment is found again next time. While the account this client writes
// as is unknown (ErrNoIdentity), Upsert creates the comment and takes its
// author as that account from then on. The comment returned is GitHub's
// answer (its body, updated_at).
func (r *Repo) Upsert(ctx context.Context, number int, marker, body string) (Comment, error) {
	if marker == "" {
		return Comment{}, fmt.Errorf("upsert comment on #%d: empty marker", number)
	}
	if !strings.Contains(body, marker) {
		body = strings.TrimRight(body, "\n") + "\n\n" + marker + "\n"
	}
	self, err := r.Self(ctx)
	if errors.Is(err, ErrNoIdentity) {
		return r.createComment(ctx, number, body)
	}
	if err != nil {
		return Comment{}, fmt.Errorf("upsert comment on #%d: %w", number, err)
	}
	all, err := r.comments(ctx, number)
	if err != nil {
		return Comment{}, fmt.Errorf("upsert comment on #%d: %w", number, err)
	}
	var found *gh.IssueComment
	for _, c := range all {
		if byself(self, c.GetUser()) && strings.Contains(c.GetBody(), marker) && (found == nil || c.GetID() > found.GetID()) {
			found = c
		}
	}
	if found == nil {
		return r.createComment(ctx, number, body)
	}
	if found.GetBody() == body {
		return toComment(found), nil
	}
	edited, resp, err := r.client.Issues.EditComment(ctx, r.owner, r.name, found.GetID(), &gh.IssueComment{Body: gh.Ptr(body)})
	if err := r.done(resp, err, "edit comment %d on #%d", found.GetID(), number); err != nil {
		return Comment{}, err
	}
	return toComment(edited), nil
}

// CreateComment posts a new comment on issue or pull request number and
// returns its URL (the `comment: new` mode).
func (r *Repo) CreateComment(ctx context.Context, number int, body string) (string, error) {
	c, err := r.createComment(ctx, number, body)
	return c.HTMLURL, err
}

// PostComment posts a new comment on issue or pull request number and
// returns it as GitHub answered (its body, updated_at, author).
func (r *Repo) PostComment(ctx context.Context, number int, body string) (Comment, error) {
	return r.createComment(ctx, number, body)
}

// createComment posts a comment and checks who GitHub says wrote it: the
// account this client writes as, or, while that is unknown, the account
// it is from now on. A comment written as another account than the one
// Kyku takes for its own is an error: Kyku would never find it again, or
// would take someone else's comments for its own.
func (r *Repo) createComment(ctx context.Context, number int, body string) (Comment, error) {
	c, resp, err := r.client.Issues.CreateComment(ctx, r.owner, r.name, number, &gh.IssueComment{Body: gh.Ptr(body)})
	if err := r.done(resp, err, "create comment on #%d", number); err != nil {
		return Comment{}, err
	}
	out := toComment(c)
	r.selfMu.Lock()
	defer r.selfMu.Unlock()
	switch {
	case out.Author == "":
	case r.self == "":
		r.self = out.Author
	case !strings.EqualFold(r.self, out.Author):
		return out, fmt.Errorf("create comment on #%d: GitHub says %s wrote it, not %s, the account Kyku takes for its own: %w",
			number, out.Author, r.self, ErrWrongIdentity)
	}
	return out, nil
}

// MarkOutdated edits every comment on number written by Self that carries
// marker, except keepID (0 keeps the newest), into an outdated note with
// the old content collapsed; other people's comments are left alone. The marker is removed from them, so Upsert never picks them
// again and a second MarkOutdated leaves them alone.
func (r *Repo) MarkOutdated(ctx context.Context, number int, marker string, keepID int64) error {
	if marker == "" {
		return fmt.Errorf("mark comments on #%d outdated: empty marker", number)
	}
	self, err := r.Self(ctx)
	if err != nil {
		return fmt.Errorf("mark comments on #%d outdated: %w", number, err)
	}
	all, err := r.comments(ctx, number)
	if err != nil {
		return fmt.Errorf("mark comments on #%d outdated: %w", number, err)
	}
	var marked []*gh.IssueComment
	for _, c := range all {
		if byself(self, c.GetUser()) && strings.Contains(c.GetBody(), marker) {
			marked = append(marked, c)
		}
	}
	slices.SortFunc(marked, func(a, b *gh.IssueComment) int { return cmp.Compare(a.GetID(), b.GetID()) })
	if keepID == 0 && len(marked) > 0 {
		keepID = marked[len(marked)-1].GetID()
	}
	for _, c := range marked {
		if c.GetID() == keepID {
			continue
		}
		body := outdated(strings.ReplaceAll(c.GetBody(), marker, ""))
		_, resp, err := r.client.Issues.EditComment(ctx, r.owner, r.name, c.GetID(), &gh.IssueComment{Body: gh.Ptr(body)})
		if err := r.done(resp, err, "mark comment %d on #%d outdated", c.GetID(), number); err != nil {
			return err
		}
	}
	return nil
}

// OwnComments lists the comments on number written by Self whose body
// contains marker, oldest first, with their bodies.
func (r *Repo) OwnComments(ctx context.Context, number int, marker string) ([]Comment, error) {
	self, err := r.Self(ctx)
	if err != nil {
		return nil, fmt.Errorf("read comments on #%d: %w", number, err)
	}
	all, err := r.comments(ctx, number)
	if err != nil {
		return nil, fmt.Errorf("read comments on #%d: %w", number, err)
	}
	var out []Comment
	for _, c := range all {
		if byself(self, c.GetUser()) && strings.Contains(c.GetBody(), marker) {
			out = append(out, toComment(c))
		}
	}
	slices.SortFunc(out, func(a, b Comment) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

func outdated(old string) string {
	return OutdatedNote + "\n\n<details><summary>Previous content</summary>\n\n" +
		strings.TrimSpace(old) + "\n\n</details>\n"
}

// comments lists every comment on number, oldest first.
func (r *Repo) comments(ctx context.Context, number int) ([]*gh.IssueComment, error) {
	var all []*gh.IssueComment
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: perPage}}
	for {
		page, resp, err := r.client.Issues.ListComments(ctx, r.owner, r.name, number, opts)
		if err := r.done(resp, err, "list comments on #%d", number); err != nil {
			return nil, err
		}
		all = append(all, page...)
		if resp.NextPage == 0 {
			return all, nil
		}
		opts.ListOptions.Page = resp.NextPage
	}
}

// Reactions GitHub accepts.
var reactions = []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"}

// React adds a reaction (+1, -1, laugh, confused, heart, hooray, rocket,
// eyes) to an issue or pull request comment.
func (r *Repo) React(ctx context.Context, commentID int64, content string) error {
	if !slices.Contains(reactions, content) {
		return fmt.Errorf("react to comment %d: unknown reaction %q", commentID, content)
	}
	_, resp, err := r.client.Reactions.CreateIssueCommentReaction(ctx, r.owner, r.name, commentID, content)
	return r.done(resp, err, "react %q to comment %d", content, commentID)
}
