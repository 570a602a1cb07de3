// Package s3 keeps state in an S3 bucket (or any S3-compatible store) so
// that many CI runners and bot replicas share one truth safely.
//
// It owns the object layout under the configured prefix:
//
//	<prefix>/state.<env>.json                         the state
//	<prefix>/state.<env>.json.lock                    the lock (LockInfo JSON)
//	<prefix>/state.<env>.json.journal/<seq>.json      one object per journal entry
//	<prefix>/backups/state.<env>.<UTC time>.<serial>.json
//	<prefix>/<key>                                    named objects (plans/…, runs/…)
//
// Safety comes from S3 conditional requests, not from the lock alone: the
// lock is taken with If-None-Match: *, refreshed and released with If-Match on
// its ETag, a stale lock is broken with a conditional overwrite so two breakers
// cannot both win, and the state is written with If-Match on the ETag that was
// read, so no update is lost even if a lock was wrongly broken.
//
// Concurrency: a *Backend is safe for concurrent use by several goroutines;
// Read and Write are serialized and share the ETag last seen. Several
// processes (or several Backend values) may share one bucket: that is what the
// lock and the conditional writes are for. A held lock runs one heartbeat
// goroutine, stopped by Unlock.
package s3
