package github

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	gh "github.com/google/go-github/v88/github"
	"github.com/kyku/action/internal/github/githubtest"
)

func TestRetryTransport(t *testing.T) {
	tests := []struct {
		name       string
		fail       githubtest.Failure
		times      int
		retryAfter time.Duration
		post       bool // create a comment instead of reading a PR
		wantSleeps []time.Duration
		wantErr    bool
		wantCalls  int // requests the server saw
	}{
		{"429 with Retry-After", githubtest.Fail429, 1, 7 * time.Second, false, []time.Duration{7 * time.Second}, false, 2},
		{"429 on POST is retried", githubtest.Fail429, 1, 2 * time.Second, true, []time.Duration{2 * time.Second}, false, 2},
		{"secondary limit 403", githubtest.FailSecondary403, 2, 3 * time.Second, true, []time.Duration{3 * time.Second, 3 * time.Second}, false, 3},
		{"primary limit 403 waits for reset", githubtest.FailPrimary403, 1, 30 * time.Second, false, []time.Duration{31 * time.Second}, false, 2},
		{"502 on GET backs off", githubtest.Fail502, 2, 0, false, []time.Duration{time.Second, 2 * time.Second}, false, 3},
		{"502 on POST is not retried", githubtest.Fail502, 1, 0, true, nil, true, 1},
		{"gives up after 4 attempts", githubtest.Fail429, 10, time.Second, false, []time.Duration{time.Second, time.Second, time.Second}, true, 4},
		{"wait beyond the cap gives up at once", githubtest.Fail429, 1, time.Hour, false, nil, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			f := newFixture(t)
			pr := f.srv.AddPullRequest(repoName, githubtestPR(0, "s"))
			f.srv.FailNext(tt.times, tt.fail, tt.retryAfter)
			var err error
			if tt.post {
				_, err = f.repo.CreateComment(ctx, pr, "hello")
			} else {
				_, err = f.repo.PullRequest(ctx, pr)
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantSleeps, f.sleeps.got()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			if n := len(f.srv.Requests()); n != tt.wantCalls {
				t.Errorf("server saw %d requests, want %d", n, tt.wantCalls)
			}
			if tt.post && !tt.wantErr {
				if c := f.srv.Comments(repoName, pr); len(c) != 1 || c[0].Body != "hello" {
					t.Errorf("comments = %+v, want exactly one \"hello\"", c)
				}
			}
		})
	}
}

func TestRetryErrorIsClear(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	pr := f.srv.AddPullRequest(repoName, githubtestPR(0, "s"))
	f.srv.FailNext(4, githubtest.FailSecondary403, 5*time.Second)
	_, err := f.repo.PullRequest(ctx, pr)
	var re *RetryError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want a *RetryError", err)
	}
	want := &RetryError{Method: "GET", Path: "/api/v3/repos/acme/infra/pulls/1", StatusCode: http.StatusForbidden, Attempts: 4, Wait: 5 * time.Second}
	if diff := cmp.Diff(want, re); diff != "" {
		t.Errorf("RetryError (-want +got):\n%s", diff)
	}
	if !re.RateLimited() {
		t.Error("RateLimited() = false for a secondary limit")
	}
	const msg = "get pull request #1: Get \"" // go-github wraps transport errors in *url.Error
	if got := err.Error(); len(got) < len(msg) || got[:len(msg)] != msg {
		t.Errorf("error = %q, want it to start with %q", got, msg)
	}
}

func TestRetryRespectsCancellation(t *testing.T) {
	f := newFixture(t)
	pr := f.srv.AddPullRequest(repoName, githubtestPR(0, "s"))
	ctx, cancel := context.WithCancel(t.Context())
	rt := NewRetryTransport(nil)
	rt.Sleep = func(ctx context.Context, d time.Duration) error { cancel(); return sleepCtx(ctx, d) }
	client, err := NewClient(ctx, f.srv.APIURL(), &http.Client{Transport: rt}, gh.WithAuthToken(githubtest.Token))
	if err != nil {
		t.Fatal(err)
	}
	f.srv.FailNext(1, githubtest.Fail429, 30*time.Second)
	start := time.Now()
	_, err = New(client, "acme", "infra").PullRequest(ctx, pr)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Errorf("err = %v after %s, want context.Canceled at once", err, time.Since(start))
	}
}

func TestRateLimitRemaining(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	pr := f.srv.AddPullRequest(repoName, githubtestPR(0, "s"))
	if got := f.repo.RateLimitRemaining(); got != -1 {
		t.Errorf("before any call = %d, want -1", got)
	}
	f.srv.SetRateLimitRemaining(1234)
	if _, err := f.repo.PullRequest(ctx, pr); err != nil {
		t.Fatal(err)
	}
	if got := f.repo.RateLimitRemaining(); got != 1234 {
		t.Errorf("after a call = %d, want 1234", got)
	}
}

func TestNewClientBaseURL(t *testing.T) {
	tests := []struct {
		in, base, upload string
		wantErr          bool
	}{
		{"", "https://api.github.com/", "https://uploads.github.com/", false},
		{"https://api.github.com", "https://api.github.com/", "https://uploads.github.com/", false},
		{"https://ghe.example.com/api/v3", "https://ghe.example.com/api/v3/", "https://ghe.example.com/api/uploads/", false},
		{"http://127.0.0.1:1234/api/v3/", "http://127.0.0.1:1234/api/v3/", "http://127.0.0.1:1234/api/uploads/", false},
		{"/api/v3", "", "", true},
		{"://bad", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := NewClient(t.Context(), tt.in, nil)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if c.BaseURL() != tt.base || c.UploadURL() != tt.upload {
				t.Errorf("base, upload = %s, %s; want %s, %s", c.BaseURL(), c.UploadURL(), tt.base, tt.upload)
			}
		})
	}
}
