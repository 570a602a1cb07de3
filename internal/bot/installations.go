package bot

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/bradleyfalzon/ghinstallation/v2"
	gh "github.com/google/go-github/v88/github"
	"github.com/kyku/action/internal/github"
)

// installations hands out GitHub clients authenticated as one installation
// of the App: ghinstallation signs an App JWT, exchanges it for an
// installation token and renews it before it expires. One client per
// installation is cached, so tokens are reused across jobs.
type installations struct {
	apps   *ghinstallation.AppsTransport
	apiURL string

	mu      sync.Mutex
	clients map[int64]*gh.Client
	app     *gh.Client // authenticated as the App (JWT), for listing installations
	login   string     // "<slug>[bot]", the account installation tokens write as
}

func newInstallations(base http.RoundTripper, appID int64, pem []byte, apiURL string) (*installations, error) {
	if base == nil {
		base = http.DefaultTransport
	}
	apps, err := ghinstallation.NewAppsTransport(base, appID, pem)
	if err != nil {
		// The library's message holds no key material.
		return nil, fmt.Errorf("load github app private key: %w", err)
	}
	apps.BaseURL = strings.TrimSuffix(apiURL, "/")
	return &installations{apps: apps, apiURL: apiURL, clients: map[int64]*gh.Client{}}, nil
}

// repo returns the repository owner/name as seen by installation id,
// bound to the App's account: only comments and issues written by it are
// ever edited or read back.
func (in *installations) repo(ctx context.Context, id int64, owner, name string) (*github.Repo, error) {
	login, err := in.self(ctx)
	if err != nil {
		return nil, err
	}
	c, err := in.client(ctx, id)
	if err != nil {
		return nil, err
	}
	r := github.New(c, owner, name)
	r.SetSelf(login)
	return r, nil
}

// self is the App's account, "<slug>[bot]" (GET /app with the App's JWT,
// asked once).
func (in *installations) self(ctx context.Context) (string, error) {
	in.mu.Lock()
	login := in.login
	in.mu.Unlock()
	if login != "" {
		return login, nil
	}
	c, err := in.appClient(ctx)
	if err != nil {
		return "", err
	}
	if login, err = github.AppLogin(ctx, c); err != nil {
		return "", err
	}
	in.mu.Lock()
	in.login = login
	in.mu.Unlock()
	return login, nil
}

// appClient is the client authenticated as the App (its JWT).
func (in *installations) appClient(ctx context.Context) (*gh.Client, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.app == nil {
		c, err := github.NewClient(ctx, in.apiURL, &http.Client{Transport: in.apps})
		if err != nil {
			return nil, fmt.Errorf("app client: %w", err)
		}
		in.app = c
	}
	return in.app, nil
}

// client is installation id's cached client.
func (in *installations) client(ctx context.Context, id int64) (*gh.Client, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	c := in.clients[id]
	if c == nil {
		tr := ghinstallation.NewFromAppsTransport(in.apps, id)
		var err error
		if c, err = github.NewClient(ctx, in.apiURL, &http.Client{Transport: tr}); err != nil {
			return nil, fmt.Errorf("client for installation %d: %w", id, err)
		}
		in.clients[id] = c
	}
	return c, nil
}

// Installations lists the App's installations (App JWT).
func (in *installations) Installations(ctx context.Context) ([]github.Installation, error) {
	c, err := in.appClient(ctx)
	if err != nil {
		return nil, err
	}
	return github.ListInstallations(ctx, c)
}

// Repos lists the repositories installation id can access (its token).
func (in *installations) Repos(ctx context.Context, id int64) ([]github.RepoRef, error) {
	c, err := in.client(ctx, id)
	if err != nil {
		return nil, err
	}
	repos, err := github.ListInstallationRepos(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("installation %d: %w", id, err)
	}
	return repos, nil
}
