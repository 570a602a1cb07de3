package github

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryTransport retries requests GitHub rejected for rate limiting, and
// idempotent requests that met a transient server error.
//
//   - 429, and 403 carrying Retry-After, X-RateLimit-Remaining: 0 or the
//     secondary rate limit message: the request was refused, not run, so it
//     is retried whatever its method, after Retry-After, or until
//     X-RateLimit-Reset, or a minute for a bare secondary limit.
//   - 502, 503, 504: only GET, HEAD, OPTIONS, PUT and DELETE are retried,
//     with exponential backoff (Retry-After wins when present).
//
// A wait longer than MaxWait, or more than MaxAttempts attempts, ends with a
// *RetryError. Requests whose body cannot be replayed are not retried.
type RetryTransport struct {
	Base        http.RoundTripper // default http.DefaultTransport
	MaxAttempts int               // attempts in all, including the first
	MaxWait     time.Duration     // longest single wait accepted
	Backoff     time.Duration     // first 5xx backoff, doubled each attempt
	// Sleep waits for d or until ctx is done (injected by tests).
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock used to read X-RateLimit-Reset (injected by tests).
	Now func() time.Time
}

// NewRetryTransport wraps base (nil means http.DefaultTransport) with
// defaults: 4 attempts, waits up to 90 seconds, 1 second first backoff.
func NewRetryTransport(base http.RoundTripper) *RetryTransport {
	return &RetryTransport{
		Base:        base,
		MaxAttempts: 4,
		MaxWait:     90 * time.Second,
		Backoff:     time.Second,
		Sleep:       sleepCtx,
		Now:         time.Now,
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// RetryError says a request was still refused when RetryTransport gave up.
type RetryError struct {
	Method     string
	Path       string // URL path, without the query (which may hold tokens)
	StatusCode int    // the last answer's status
	Attempts   int
	// Wait is the wait GitHub asked for last (0 if none).
	Wait time.Duration
}

// Error implements error.
func (e *RetryError) Error() string {
	msg := fmt.Sprintf("github %s %s: status %d after %d attempts", e.Method, e.Path, e.StatusCode, e.Attempts)
	if e.Wait > 0 {
		msg += fmt.Sprintf(", retry after %s", e.Wait)
	}
	return msg
}

// RateLimited reports whether GitHub refused the request for rate limiting
// (as opposed to a server error).
func (e *RetryError) RateLimited() bool {
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode == http.StatusForbidden
}

// RoundTrip implements http.RoundTripper.
func (t *RetryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	sleep := t.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	attempts := max(t.MaxAttempts, 1)
	for attempt := 1; ; attempt++ {
		try := req
		if attempt > 1 {
			var err error
			if try, err = rewind(req); err != nil {
				return nil, err
			}
		}
		resp, err := base.RoundTrip(try)
		if err != nil {
			return nil, err
		}
		wait, retry := t.classify(req, resp, attempt)
		replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
		if !retry || !replayable {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
		if attempt >= attempts || (t.MaxWait > 0 && wait > t.MaxWait) {
			return nil, &RetryError{Method: req.Method, Path: req.URL.Path, StatusCode: resp.StatusCode, Attempts: attempt, Wait: wait}
		}
		if err := sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

func rewind(req *http.Request) (*http.Request, error) {
	r := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("rewind request body: %w", err)
		}
		r.Body = body
	}
	return r, nil
}

// classify decides whether resp is worth a retry and after how long.
func (t *RetryTransport) classify(req *http.Request, resp *http.Response, attempt int) (time.Duration, bool) {
	retryAfter, hasRetryAfter := parseRetryAfter(resp.Header.Get("Retry-After"))
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		if hasRetryAfter {
			return retryAfter, true
		}
		if d, ok := t.untilReset(resp); ok {
			return d, true
		}
		return t.backoff(attempt), true
	case http.StatusForbidden:
		if hasRetryAfter {
			return retryAfter, true
		}
		if resp.Header.Get("X-RateLimit-Remaining") == "0" {
			if d, ok := t.untilReset(resp); ok {
				return d, true
			}
		}
		if secondaryLimit(resp) {
			return time.Minute, true
		}
		return 0, false
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		switch req.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		default:
			return 0, false
		}
		if hasRetryAfter {
			return retryAfter, true
		}
		return t.backoff(attempt), true
	}
	return 0, false
}

func (t *RetryTransport) backoff(attempt int) time.Duration {
	b := t.Backoff
	if b <= 0 {
		b = time.Second
	}
	return b << (attempt - 1)
}

func (t *RetryTransport) untilReset(resp *http.Response) (time.Duration, bool) {
	reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil {
		return 0, false
	}
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	// One second past the reset, as the reset is rounded down.
	return max(time.Unix(reset, 0).Sub(now())+time.Second, 0), true
}

func parseRetryAfter(v string) (time.Duration, bool) {
	secs, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || secs < 0 {
		return 0, false
	}
	return time.Duration(secs) * time.Second, true
}

// secondaryLimit peeks at a 403 body for GitHub's secondary rate limit
// message, leaving the body readable.
func secondaryLimit(resp *http.Response) bool {
	head, err := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	return err == nil && strings.Contains(strings.ToLower(string(head)), "secondary rate limit")
}
