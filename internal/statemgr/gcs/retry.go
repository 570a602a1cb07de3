package gcs

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"

	"github.com/kyku/action/internal/statemgr/objstore"
)

// Retry budgets (the defaults of Options.RetryBudget and AttemptTimeout;
// docs/state.md "GCS"). Kyku retries every call itself, and not as the client
// library would: the library never retries an unconditional write or
// delete, cannot retry a single-request upload at all, has no per-attempt
// timeout (a stalled connection eats the whole budget), and cannot tell an
// operation that a lost answer may have landed.
const (
	DefaultRetryBudget    = objstore.DefaultRetryBudget
	DefaultAttemptTimeout = objstore.DefaultAttemptTimeout
)

// isTransient reports an error that another attempt may not meet: a reset
// or refused connection, a timed-out attempt, a truncated answer, 408, 429
// or a 5xx.
func isTransient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	if s := status(err); s >= 500 || s == http.StatusTooManyRequests || s == http.StatusRequestTimeout {
		return true
	}
	if s := status(err); s != 0 {
		return false // an answer the server meant: 404, 412, 403…
	}
	// Any failure of the transport (net/http wraps them in *url.Error, a
	// net.Error): dial, TLS handshake timeouts, HTTP/2 stream resets.
	var ne net.Error
	return errors.As(err, &ne)
}

// RetryBudgetError is returned when transient errors outlasted an
// operation's retry budget. It wraps the last error.
type RetryBudgetError = objstore.RetryBudgetError

// call runs fn under the bucket's retry policy (objstore.Retry.Call),
// naming the object key in a *RetryBudgetError.
func (g *bucket) call(ctx context.Context, op, key string, fn func(ctx context.Context) error) (objstore.Attempts, error) {
	return g.retry.Call(ctx, op, g.url(key), fn)
}
