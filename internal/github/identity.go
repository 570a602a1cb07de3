package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v88/github"
)

// ActionsBot is the account a workflow's GITHUB_TOKEN writes as. Any
// workflow of the repository (a same-repository pull request's included)
// can write as it, so what it wrote is evidence, never an instruction.
const ActionsBot = "github-actions[bot]"

// ErrNoIdentity: the account the client writes as is not known, so no
// comment or issue can be told to be Kyku's own.
var ErrNoIdentity = errors.New("the account kyku writes as is unknown")

// ErrWrongIdentity: GitHub says a comment Kyku just wrote was written as
// another account than the one Kyku takes for its own.
var ErrWrongIdentity = errors.New("the token writes as another account")

// TokenLogin is the login a token's comments and issues are written as:
// GraphQL's viewer, which answers for a person's token, an App's
// installation token and a workflow's GITHUB_TOKEN alike; failing that,
// GET /user (a person's token). When neither answers (GET /user refuses
// every installation token with 403, whichever App it belongs to) the
// error wraps ErrNoIdentity: nothing is assumed, least of all
// github-actions[bot], the account any workflow of the repository can
// write as. The bot does not use this (its installation tokens are its
// App's, named by GET /app: see AppLogin).
func TokenLogin(ctx context.Context, client *gh.Client) (string, error) {
	return New(client, "", "").tokenLogin(ctx)
}

func (r *Repo) tokenLogin(ctx context.Context) (string, error) {
	login, verr := r.Viewer(ctx)
	if verr == nil {
		return login, nil
	}
	u, resp, err := r.client.Users.Get(ctx, "")
	if err == nil && u.GetLogin() != "" {
		return u.GetLogin(), nil
	}
	if err == nil {
		err = errors.New("GET /user has no login")
	} else if resp != nil && resp.Response != nil && resp.StatusCode == http.StatusForbidden {
		err = errors.New("GET /user is refused to this token (an installation token)")
	}
	return "", fmt.Errorf("find the account the token writes as: %w (%w; %w)", ErrNoIdentity, verr, err)
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
// "<slug>[bot]", or what the Action was told). Without it, Self asks
// TokenLogin once.
func (r *Repo) SetSelf(login string) {
	r.selfMu.Lock()
	defer r.selfMu.Unlock()
	r.self = login
}

// Self is the account this client writes as: the one SetSelf named,
// TokenLogin's answer (asked until it answers), or the author of the
// first comment Upsert created without knowing it. An error wraps
// ErrNoIdentity while none of them is known.
func (r *Repo) Self(ctx context.Context) (string, error) {
	r.selfMu.Lock()
	defer r.selfMu.Unlock()
	if r.self != "" {
		return r.self, nil
	}
	login, err := r.tokenLogin(ctx)
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
