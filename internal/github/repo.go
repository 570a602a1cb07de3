package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	gh "github.com/google/go-github/v88/github"
)

// ErrNotFound is wrapped by errors for a 404 answer: an unknown pull
// request, a missing file, a repository the token cannot see.
var ErrNotFound = errors.New("not found")

// perPage is the page size for every list call (GitHub's maximum).
const perPage = 100

// Repo is a GitHub client bound to one repository.
type Repo struct {
	client *gh.Client
	owner  string
	name   string
	rate   atomic.Int64

	selfMu sync.Mutex
	self   string // the account this client writes as ("" until known)
}

// New binds client to the repository owner/repo.
func New(client *gh.Client, owner, repo string) *Repo {
	r := &Repo{client: client, owner: owner, name: repo}
	r.rate.Store(-1)
	return r
}

// Owner is the repository owner.
func (r *Repo) Owner() string { return r.owner }

// Name is the repository name.
func (r *Repo) Name() string { return r.name }

// NewClient returns a go-github client for the API at baseURL (GitHub's
// GITHUB_API_URL: empty or https://api.github.com for github.com, or a GHES
// or test URL such as http://127.0.0.1:1234/api/v3/, with or without the
// trailing slash) whose transport is httpClient's wrapped in a
// RetryTransport (unless it already is one). httpClient carries the authentication (a ghinstallation
// transport); a plain token comes as gh.WithAuthToken in extra. ctx is
// accepted for symmetry with the other constructors and is not retained.
func NewClient(ctx context.Context, baseURL string, httpClient *http.Client, extra ...gh.ClientOptionsFunc) (*gh.Client, error) {
	_ = ctx
	hc := &http.Client{}
	if httpClient != nil {
		c := *httpClient
		hc = &c
	}
	if _, ok := hc.Transport.(*RetryTransport); !ok {
		hc.Transport = NewRetryTransport(hc.Transport)
	}
	opts := []gh.ClientOptionsFunc{gh.WithHTTPClient(hc)}
	if baseURL != "" {
		u, err := url.Parse(baseURL)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("parse github api url %q: not an absolute url", baseURL)
		}
		if !strings.HasSuffix(u.Path, "/") {
			u.Path += "/"
		}
		upload := *u
		if p, ok := strings.CutSuffix(u.Path, "/api/v3/"); ok {
			upload.Path = p + "/api/uploads/"
		} else if u.Host == "api.github.com" {
			upload = url.URL{Scheme: "https", Host: "uploads.github.com", Path: "/"}
		}
		base, up := u.String(), upload.String()
		opts = append(opts, gh.WithURLs(&base, &up))
	}
	client, err := gh.NewClient(append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("github client: %w", err)
	}
	return client, nil
}

// NewTokenClient is NewClient authenticating with token (a workflow's
// GITHUB_TOKEN or an installation token); an empty token makes
// unauthenticated requests.
func NewTokenClient(ctx context.Context, baseURL, token string) (*gh.Client, error) {
	var auth []gh.ClientOptionsFunc
	if token != "" {
		auth = append(auth, gh.WithAuthToken(token))
	}
	return NewClient(ctx, baseURL, nil, auth...)
}

// RateLimitRemaining is the X-RateLimit-Remaining of the last response, or
// -1 before any response carried one.
func (r *Repo) RateLimitRemaining() int {
	return int(r.rate.Load())
}

// done records the rate limit of resp and wraps err with what failed,
// adding ErrNotFound for a 404.
func (r *Repo) done(resp *gh.Response, err error, what string, args ...any) error {
	if resp != nil && resp.Response != nil && resp.Header.Get("X-RateLimit-Remaining") != "" {
		r.rate.Store(int64(resp.Rate.Remaining))
	}
	if err == nil {
		return nil
	}
	op := fmt.Sprintf(what, args...)
	if resp != nil && resp.Response != nil && resp.StatusCode == http.StatusNotFound {
		return fmt.Errorf("%s: %w: %w", op, ErrNotFound, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}
