package github

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// The two GraphQL queries Kyku makes: the account a token writes as
// (viewer: it answers for a person's token, an App's installation token
// and a workflow's GITHUB_TOKEN alike, where REST's GET /user refuses
// installation tokens), and an issue comment's last edit.

// graphql posts query with variables to the GraphQL API beside the REST
// base URL (https://api.github.com/graphql, or …/api/graphql beside a
// GitHub Enterprise Server's …/api/v3/) and decodes data into out. An
// answer with errors is an error.
func (r *Repo) graphql(ctx context.Context, what, query string, vars map[string]any, out any) error {
	base, err := url.Parse(r.client.BaseURL())
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	// Resolved here, not by NewRequest: go-github refuses a ".." in a path.
	endpoint := base.ResolveReference(&url.URL{Path: "../graphql"}).String()
	req, err := r.client.NewRequest(ctx, "POST", endpoint, map[string]any{"query": query, "variables": vars})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	var answer struct {
		Data   any `json:"data"`
		Errors []struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	answer.Data = out
	resp, err := r.client.Do(req, &answer)
	if err := r.done(resp, err, "%s", what); err != nil {
		return err
	}
	if len(answer.Errors) > 0 {
		var msgs []string
		notFound := false
		for _, e := range answer.Errors {
			msgs = append(msgs, e.Message)
			notFound = notFound || e.Type == "NOT_FOUND"
		}
		err := errors.New(strings.Join(msgs, "; "))
		if notFound {
			return fmt.Errorf("%s: %w: %w", what, ErrNotFound, err)
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// Viewer is the login of the account the client's token writes as
// (GraphQL viewer { login }): a person's login, "<slug>[bot]" for an App's
// installation token, github-actions[bot] for a workflow's GITHUB_TOKEN.
func (r *Repo) Viewer(ctx context.Context) (string, error) {
	var data struct {
		Viewer struct {
			Login string `json:"login"`
		} `json:"viewer"`
	}
	if err := r.graphql(ctx, "find the account the token writes as", `query { viewer { login } }`, nil, &data); err != nil {
		return "", err
	}
	if data.Viewer.Login == "" {
		return "", fmt.Errorf("find the account the token writes as: %w", ErrNoIdentity)
	}
	return data.Viewer.Login, nil
}

// Edit is the last edit of a comment.
type Edit struct {
	Editor   string    // login of who edited it last ("" when never edited, or unknown)
	EditedAt time.Time // when (zero when never edited)
}

// LastEdit asks GraphQL who last edited comment c and when (editor and
// lastEditedAt of the IssueComment node c.NodeID).
func (r *Repo) LastEdit(ctx context.Context, c Comment) (Edit, error) {
	what := fmt.Sprintf("find who edited comment %d", c.ID)
	if c.NodeID == "" {
		return Edit{}, fmt.Errorf("%s: the comment has no node ID", what)
	}
	var data struct {
		Node *struct {
			LastEditedAt *time.Time `json:"lastEditedAt"`
			Editor       *struct {
				Login string `json:"login"`
			} `json:"editor"`
		} `json:"node"`
	}
	q := `query($id: ID!) { node(id: $id) { ... on IssueComment { lastEditedAt editor { login } } } }`
	if err := r.graphql(ctx, what, q, map[string]any{"id": c.NodeID}, &data); err != nil {
		return Edit{}, err
	}
	var e Edit
	if n := data.Node; n != nil {
		if n.LastEditedAt != nil {
			e.EditedAt = *n.LastEditedAt
		}
		if n.Editor != nil {
			e.Editor = n.Editor.Login
		}
	}
	return e, nil
}
