package github

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	gh "github.com/google/go-github/v88/github"
	"github.com/kyku/action/internal/github/githubtest"
)

const repoName = "acme/infra"

var epoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// sleeps records the waits a RetryTransport asked for, without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return nil
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

type fixture struct {
	srv    *githubtest.Server
	repo   *Repo
	sleeps *sleeps
}

// newFixture binds a Repo to acme/infra on a fresh fake, authenticated with
// the fake's static token, with instant retries and a fixed clock.
func newFixture(t *testing.T) fixture {
	t.Helper()
	srv := githubtest.NewServer(t)
	srv.SetNow(func() time.Time { return epoch })
	srv.AddRepo(repoName, "main")
	sl := &sleeps{}
	rt := NewRetryTransport(nil)
	rt.Sleep = sl.sleep
	rt.Now = func() time.Time { return epoch }
	client, err := NewClient(t.Context(), srv.APIURL(), &http.Client{Transport: rt}, gh.WithAuthToken(githubtest.Token))
	if err != nil {
		t.Fatal(err)
	}
	return fixture{srv: srv, repo: New(client, "acme", "infra"), sleeps: sl}
}

// repoWith binds a Repo to acme/infra on f's fake with token.
func (f fixture) repoWith(t *testing.T, token string) *Repo {
	t.Helper()
	client, err := NewClient(t.Context(), f.srv.APIURL(), nil, gh.WithAuthToken(token))
	if err != nil {
		t.Fatal(err)
	}
	return New(client, "acme", "infra")
}

func githubtestPR(number int, headSHA string) githubtest.PullRequest {
	return githubtest.PullRequest{Number: number, User: "author", HeadSHA: headSHA, HeadRef: "feature", Title: "change"}
}
