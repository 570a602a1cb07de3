// Package statemgrtest is the conformance suite every state backend must
// pass (after OpenTofu's statemgr.TestFull): Run exercises the lock, the
// conditional write, the journal, backups and objects through the
// statemgr.Backend interface only, so the same tests run against local/,
// s3/, gcs/, spaces/ and httpstate/. RunEncrypted runs it again through a
// Codec and checks the stored bytes; RunStale checks heartbeats and the
// breaking of abandoned locks where a backend has them. It holds no state
// of its own; Run's subtests run sequentially and each gets a fresh store
// from the factory.
package statemgrtest
