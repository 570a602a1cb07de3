package httpstate

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"time"
)

// response is one answer, read whole.
type response struct {
	status int
	body   []byte
}

// StatusError is an unexpected HTTP status.
type StatusError struct {
	Method, URL string
	Status      int
	Body        string
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s %s: HTTP %d", e.Method, e.URL, e.Status)
	switch e.Status {
	case http.StatusUnauthorized:
		msg += " (the server wants credentials: set backend.username and KYKU_HTTP_PASSWORD)"
	case http.StatusForbidden:
		msg += " (the credentials were refused: check backend.username and KYKU_HTTP_PASSWORD)"
	}
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

func transientStatus(s int) bool { return s == 429 || s >= 500 }

// do sends one request, retrying network errors and 429/5xx up to
// Config.RetryMax times with exponential backoff and jitter between
// RetryWaitMin and RetryWaitMax. It reports whether an attempt may have
// reached the server before a later one answered (then a refusal may be
// our own earlier success).
func (b *Backend) do(ctx context.Context, method, url string, body []byte, accept ...int) (response, bool, error) {
	var ambiguous bool
	var lastErr error
	for attempt := 0; ; attempt++ {
		resp, err := b.once(ctx, method, url, body)
		if err == nil && !transientStatus(resp.status) {
			return resp, ambiguous, nil
		}
		if err == nil {
			err = &StatusError{Method: method, URL: redact(url), Status: resp.status, Body: snippet(resp.body)}
		}
		if ctx.Err() != nil {
			return response{}, ambiguous, ctx.Err()
		}
		lastErr = err
		ambiguous = true
		if attempt >= b.cfg.RetryMax {
			return response{}, ambiguous, fmt.Errorf("http backend: %s %s: gave up after %d attempts: %w", method, redact(url), attempt+1, lastErr)
		}
		wait := min(b.cfg.RetryWaitMin<<attempt, b.cfg.RetryWaitMax)
		wait = wait/2 + time.Duration(mrand.Int64N(int64(wait/2)+1))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return response{}, ambiguous, ctx.Err()
		case <-t.C:
		}
	}
}

func (b *Backend) once(ctx context.Context, method, url string, body []byte) (response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		// The error may quote the URL: it is not wrapped.
		return response{}, fmt.Errorf("http backend: %s %s: the request cannot be made (method or address invalid)", method, redact(url))
	}
	if b.cfg.Username != "" {
		req.SetBasicAuth(b.cfg.Username, b.cfg.Password)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		sum := md5.Sum(body)
		req.Header.Set("Content-MD5", base64.StdEncoding.EncodeToString(sum[:]))
	}
	resp, err := b.httpc.Do(req)
	if err != nil {
		return response{}, redactErr(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return response{}, fmt.Errorf("read answer: %w", err)
	}
	if len(data) > maxDocument {
		return response{}, errors.New("answer larger than 256 MiB")
	}
	if raw := resp.Header.Get("Content-MD5"); raw != "" && resp.StatusCode == http.StatusOK {
		want, err := base64.StdEncoding.DecodeString(raw)
		if sum := md5.Sum(data); err != nil || !bytes.Equal(want, sum[:]) {
			return response{}, fmt.Errorf("answer does not match its Content-MD5: %w", io.ErrUnexpectedEOF)
		}
	}
	return response{status: resp.StatusCode, body: data}, nil
}

const maxDocument = 256 << 20

func snippet(b []byte) string {
	s := string(bytes.TrimSpace(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
