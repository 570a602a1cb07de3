package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v62/github"
)

// ActionsBot is the account a workflow's GITHUB_TOKEN writes as. Any
// workflow of the repository (a same-repository pull request's included)
// can write as it, so what it wrote is evidence, never an instruction.
const ActionsBot = "github-actions[bot]"

// ErrNoIdentity: the account the client writes as is not known, so no
// comment or issue can be told to be Kyku's own.
var ErrNoIdentity = errors.New("the account kyku writes as is unknown")

// TokenLogin is the login a token's comments and issues are written as:
// GET /user for a person's token. GitHub answers 403 to that call for an
// installation token, and the workflow's GITHUB_TOKEN (an installation
// token of GitHub Actions) writes as github-actions[bot]. The bot must not
// use this (its installation tokens are another App's): see AppLogin.
func TokenLogin(ctx context.Context, client *gh.Client) (string, error) {
	u, resp, err := client.Users.Get(ctx, "")
	if err != nil {
		if resp != nil && resp.Response != nil && resp.StatusCode == http.StatusForbidden {
			return ActionsBot, nil
		}
		return "", fmt.Errorf("find the account the token writes as: %w", err)
	}
	if u.GetLogin() == "" {
		return "", fmt.Errorf("find the account the token writes as: %w", ErrNoIdentity)
	}
	return u.GetLogin(), nil
}

// AppLogin is "<slug>[bot]", the account an App's installation tokens
// write as, from GET /app. client must authenticate as the App (its JWT).
func AppLogin(ctx context.Context, client *gh.Client) (string, error) {
	app, _, err := client.Apps.Get(ctx, "")
	if err != nil {
		return "", fmt.Errorf("find the app's account: %w", err)
	}
	if app.GetSlug() == "" {
		return "", fmt.Errorf("find the app's account: %w: GET /app has no slug", ErrNoIdentity)
	}
	return app.GetSlug() + "[bot]", nil
}

// SetSelf says which account this client writes as (the App's
// "<slug>[bot]"). Without it, Self asks TokenLogin once.
func (r *Repo) SetSelf(login string) {
	r.selfMu.Lock()
	defer r.selfMu.Unlock()
	r.self = login
}

// Self is the account this client writes as: the one SetSelf named, or
// TokenLogin's answer (asked once, kept on success).
func (r *Repo) Self(ctx context.Context) (string, error) {
	r.selfMu.Lock()
	defer r.selfMu.Unlock()
	if r.self != "" {
		return r.self, nil
	}
	login, err := TokenLogin(ctx, r.client)
	if err != nil {
		return "", err
	}
	r.self = login
	return login, nil
}

// byself reports whether a comment or issue author is this client's account.
func byself(self string, author *gh.User) bool {
	return self != "" && strings.EqualFold(author.GetLogin(), self)
}
