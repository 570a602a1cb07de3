// Package queue owns the bot's job queue: a bounded queue of jobs run by a
// fixed number of workers, where jobs sharing a key never overlap and run
// in submission order, while jobs with different keys run in parallel. A
// job may end its run asking to run again, once, behind another key's
// jobs (Requeue): it waits there without a worker, keeping its own key.
//
// Every job runs with its own context derived from the queue's (never from
// the HTTP request that queued it), with panics recovered and reported as
// the outcome "panic". Run starts the workers (package lifecycle's
// contract). Shutdown stops intake, lets the workers drain what was
// accepted, and, when its context ends first, drops the jobs not yet
// started and cancels the running ones' contexts — then waits for every
// worker to return, so no goroutine outlives it.
//
// Concurrency: every method is safe for concurrent use.
package queue
