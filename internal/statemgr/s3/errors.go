package s3

import (
	"errors"
	"fmt"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/objstore"
)

// ErrLockLost is wrapped by Unlock (and Lock.Lost) when the lock object was
// changed or removed by someone else while we held it: the lock was broken
// as stale, or force-unlocked. It is statemgr.ErrLockLost.
var ErrLockLost = statemgr.ErrLockLost

// ErrBucketNotFound, ErrAccessDenied and ErrWrongRegion classify backend
// errors; they are wrapped together with the SDK's error.
var (
	ErrBucketNotFound = errors.New("bucket does not exist")
	ErrAccessDenied   = errors.New("access denied")
	ErrWrongRegion    = errors.New("bucket is in another region")
)

// apiCode is the S3 error code ("NoSuchKey", "PreconditionFailed", …) or "".
func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// httpStatus is the HTTP status of a failed S3 response, or 0.
func httpStatus(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// isNotFound reports a missing key: NoSuchKey, or a 404 without an error
// code (a HEAD). Any other 404 (a missing bucket, a server's "no such user")
// is not a missing key: treating it as one would read as "no state yet".
func isNotFound(err error) bool {
	switch apiCode(err) {
	case "NoSuchKey", "NotFound":
		return true
	case "":
		return httpStatus(err) == 404
	}
	return false
}

// isPreconditionFailed reports a failed If-Match / If-None-Match (412), or
// S3's 409 for a conditional write that raced another one.
func isPreconditionFailed(err error) bool {
	switch apiCode(err) {
	case "PreconditionFailed", "ConditionalRequestConflict":
		return true
	}
	s := httpStatus(err)
	return s == 412 || (s == 409 && apiCode(err) == "")
}

// classify marks a missing key and a failed precondition for objstore.
func classify(err error) error {
	switch {
	case isNotFound(err):
		return objstore.Mark(err, objstore.ErrNotFound)
	case isPreconditionFailed(err):
		return objstore.Mark(err, objstore.ErrPrecondition)
	}
	return err
}

// explain turns an SDK error from action on key into an error a user can
// act on: missing bucket, access denied and wrong region say so plainly.
func (b *bucket) explain(action, key string, err error) error {
	code, status := apiCode(err), httpStatus(err)
	switch {
	case code == "NoSuchBucket":
		return fmt.Errorf("s3 backend: bucket %q does not exist (region %s, endpoint %s): %w: %w",
			b.name, b.region, b.where, ErrBucketNotFound, err)
	case code == "PermanentRedirect" || code == "AuthorizationHeaderMalformed" ||
		code == "IllegalLocationConstraintException" || status == 301:
		return fmt.Errorf("s3 backend: bucket %q is in another region than %s (endpoint %s); set backend.region in kyku.yaml: %w: %w",
			b.name, b.region, b.where, ErrWrongRegion, err)
	case code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch" ||
		code == "XAdminUserNotFound": // versitygw's 404 for an unknown access key
		return fmt.Errorf("s3 backend: access denied to %s %s: the credentials were rejected (check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the profile): %w: %w",
			action, b.url(key), ErrAccessDenied, err)
	case code == "AccessDenied" || status == 403:
		return fmt.Errorf("s3 backend: access denied to %s %s (check the credentials and the bucket policy): %w: %w",
			action, b.url(key), ErrAccessDenied, err)
	}
	return fmt.Errorf("s3 backend: %s %s: %w", action, b.url(key), err)
}
