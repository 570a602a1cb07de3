// Package intake owns the webhook intake: POST /webhook verified, deduped
// and handed to the job runner with a 202, never calling GitHub or the
// engine on the request's time.
//
// Nothing an unsigned request sends is kept or processed: a request
// without a well-formed X-Hub-Signature-256 is refused before its body is
// read, a declared body over MaxBody before reading too, and the body is
// read through http.MaxBytesReader; the signature is verified before the
// payload is decoded. A delivery runs once: by its X-GitHub-Delivery ID
// and by its signed body's digest (the signature does not cover the
// header, so a replayed body under a new ID is caught too), for a window
// (dedupe.go) — across replicas with a store, and one the store cannot
// record is refused with 503. With a store the job is recorded before the
// 202 (the runner's Accept). Metrics label events from a closed set
// (Label), so header values cannot grow them.
//
// Concurrency: an *Intake serves any number of requests at once and keeps
// package lifecycle's contract: it takes deliveries from New until
// Shutdown (or Run's context ending), then answers 503 so that GitHub
// redelivers them to a replica that takes them.
package intake
