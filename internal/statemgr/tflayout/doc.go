// Package tflayout keeps a root's state where OpenTofu keeps it, in its
// format and under its lock: a statemgr.Backend over a Slot (local, s3,
// gcs and http each make theirs) that reads and writes Terraform's state
// (package tfstate, through its Bridge to Kyku's model) and takes the lock
// as OpenTofu 1.12 does, so that OpenTofu and Kyku work on one state in
// turn, each honouring the other's lock.
//
// What Kyku adds (journal, backups, saved plans, audit records, and
// tfstate.Extra: what Kyku's model holds beyond a Terraform state) lives
// beside the state in an Aside: a directory or prefix named after the
// state with ".kyku" appended, where OpenTofu looks for nothing.
//
// A write that changes nothing in the Terraform state is not made, as
// OpenTofu makes none: the serial rises only with a change. Kyku's own
// state encryption is refused on such a state (New's caller passes no
// Codec), and so is OpenTofu's (tfstate.ErrEncrypted).
//
// Concurrency: a *Backend is safe for concurrent use; its reads and writes
// are serialized. The lock is the Slot's, which excludes other processes
// (OpenTofu's and Kyku's) and other Backends of this process alike.
package tflayout
