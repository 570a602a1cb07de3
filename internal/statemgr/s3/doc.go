// Package s3 keeps state in an S3 bucket (or any S3-compatible store) so
// that many CI runners and bot replicas share one truth safely. The backend
// logic (layout, lock, conditional writes, journal, backups, objects) is
// package objstore's; this package is how S3 does each call:
//
//   - conditional requests: create-if-absent is If-None-Match: *, a
//     conditional overwrite or delete is If-Match on the ETag read;
//   - retries: the SDK's retryer is off; every call is retried by Kyku
//     within a budget (Options.RetryBudget, or what is left of
//     --lock-timeout while Lock waits), each attempt cut off after
//     Options.AttemptTimeout (retry.go);
//   - errors: NoSuchKey is a missing key, 412 (and S3's 409 for racing
//     conditional writes) a failed precondition; a missing bucket, denied
//     access and a wrong region are said plainly (errors.go);
//   - SSE-KMS when Config.KMSKeyID is set, and Config.Unlocked for stores
//     without conditional writes (package spaces' lock: false).
//
// Concurrency: a *Backend is safe for concurrent use by several goroutines,
// and several processes may share one bucket (package objstore).
package s3
