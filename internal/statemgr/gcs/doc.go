// Package gcs keeps state in a Google Cloud Storage bucket, with the same
// object layout and guarantees as package s3, through
// cloud.google.com/go/storage and Application Default Credentials:
//
//	<prefix>/state.<env>.json                         the state
//	<prefix>/state.<env>.json.lock                    the lock (LockInfo JSON)
//	<prefix>/state.<env>.json.journal/<seq>.json      one object per journal entry
//	<prefix>/backups/state.<env>.<UTC time>.<serial>.json
//	<prefix>/<key>                                    named objects (plans/…, runs/…)
//
// Safety comes from generation preconditions: the lock is created with
// ifGenerationMatch=0 (only if absent), refreshed and broken with
// ifGenerationMatch on the generation read, and deleted by generation; the
// state is written with ifGenerationMatch on the generation last read (0
// when there was none); journal entries and backups are created only if
// absent. A precondition failure after a retried request is checked by
// reading the object back: if it holds exactly our bytes, the write was
// ours.
//
// Every operation retries transient errors (the client library's policy:
// conditional writes are idempotent) within Options.RetryBudget.
//
// Concurrency: a *Backend is safe for concurrent use; Read and Write are
// serialized and share the generation last seen. A held lock runs one
// heartbeat goroutine, stopped by Unlock.
package gcs
