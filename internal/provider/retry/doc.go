// Package retry owns how Kyku's cloud adapters (aws, hetzner) retry one
// request and wait for the cloud: a bounded number of attempts with
// exponential backoff under a cap, where the adapter judges each failure
// (worth another attempt or final, "not found", the server's hint how long
// until an attempt can succeed, whether the adapter paces the next attempt
// itself); what is still failing after the last attempt is returned as a
// provider.TransientError carrying that hint, so the engine may retry the
// whole step. It also owns the bounded poll loop adapters wait on, and a
// sleep that ends early when its context does.
//
// Concurrency: Policy and Poll are values holding no state but an optional
// retry counter, which is updated atomically; they are safe for concurrent
// use.
package retry
