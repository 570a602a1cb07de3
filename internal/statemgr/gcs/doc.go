// Package gcs keeps state in a Google Cloud Storage bucket, with the same
// object layout and guarantees as package s3 (both are package objstore's
// backend), over the Cloud Storage JSON API (client.go: net/http, with
// Application Default Credentials from golang.org/x/oauth2/google). This
// package is how GCS does each call:
//
//   - conditional requests by generation: create-if-absent is
//     ifGenerationMatch=0, a conditional overwrite is ifGenerationMatch on
//     the generation read, and a conditional delete targets that very
//     generation (generation= as well as ifGenerationMatch=: the emulator
//     ignores the latter on a delete, docs/state.md "GCS");
//   - retries: Kyku's own (the client library's would retry neither an
//     unconditional write nor a single-request upload, and have no
//     per-attempt timeout): transient errors are retried with backoff and
//     jitter, each attempt bounded by Options.AttemptTimeout, each operation
//     by Options.RetryBudget (retry.go); a retry that meets 412 or 404
//     after a lost answer is recognised as our own write by package
//     objstore;
//   - errors: 404 is a missing key, 412 a failed precondition; a missing
//     bucket and denied access are said plainly.
//
// Concurrency: a *Backend is safe for concurrent use, and several processes
// may share one bucket (package objstore).
package gcs
