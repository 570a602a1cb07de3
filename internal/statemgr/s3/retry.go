package s3

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/kyku/action/internal/statemgr/objstore"
)

// Retry budgets (the defaults of Options.RetryBudget and AttemptTimeout;
// docs/state.md "S3 and the retry budgets"). The SDK's own retryer is switched off: its
// three attempts are far too few on a flaky link, and it cannot tell an
// operation that a lost answer may have landed.
const (
	DefaultRetryBudget    = objstore.DefaultRetryBudget
	DefaultAttemptTimeout = objstore.DefaultAttemptTimeout
)

// noSDKRetries is passed to every API call: Kyku retries itself.
func noSDKRetries(o *awss3.Options) { o.Retryer = aws.NopRetryer{} }

// sdkRetryables is the SDK's own classification of transient errors
// (connection errors, 5xx, throttling codes, RequestTimeout).
var sdkRetryables = sync.OnceValue(func() retry.IsErrorRetryables {
	return retry.IsErrorRetryables(append([]retry.IsErrorRetryable{}, retry.DefaultRetryables...))
})

// transientCodes are S3 error codes worth another attempt.
var transientCodes = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"SlowDown": true, "InternalError": true, "ServiceUnavailable": true, "RequestTimeout": true,
		"IncompleteBody": true, "Throttling": true, "ThrottlingException": true, "TooManyRequests": true,
		"RequestTimeTooSkewed": true, "ConditionalRequestConflict": true, "OperationAborted": true,
		"BadDigest": true, "XAmzContentSHA256Mismatch": true,
		// An S3-compatible gateway keeping keys as files (versitygw's
		// posix backend, backend/posix PutObject and removeParents)
		// answers so, having stored nothing, when a concurrent delete
		// removed the parent directory its put was making or linking
		// into; another attempt makes it again.
		"ExistingObjectIsDirectory": true,
	}
})

// isTransient reports an error that another attempt may not meet: a reset
// or refused connection, a timeout, a truncated body, a 5xx, throttling, or
// S3's 409 for two conditional writes that raced (which S3 says to retry).
func isTransient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	if transientCodes()[apiCode(err)] {
		return true
	}
	if s := httpStatus(err); s >= 500 || s == 429 {
		return true
	}
	var de *smithy.DeserializationError
	if errors.As(err, &de) {
		return true // a truncated or garbled answer
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	return sdkRetryables().IsErrorRetryable(err) == aws.TrueTernary
}

// RetryBudgetError is returned when transient errors outlasted an
// operation's retry budget. It wraps the last error.
type RetryBudgetError = objstore.RetryBudgetError

// call runs fn under the bucket's retry policy (objstore.Retry.Call),
// naming the object key in a *RetryBudgetError.
func (s *bucket) call(ctx context.Context, op, key string, fn func(ctx context.Context) error) (objstore.Attempts, error) {
	return s.retry.Call(ctx, op, s.url(key), fn)
}
