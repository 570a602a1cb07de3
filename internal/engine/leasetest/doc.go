// Package leasetest holds the tests of applies under per-object leases
// (engine.Options.Leases) on a real S3-compatible server (package s3test):
// applies that touch different objects at once, saved plans that go stale
// only when their objects changed, and applies at once under load with one
// killed. It has no code of its own.
package leasetest
