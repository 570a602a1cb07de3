// Package objstore is the one implementation of statemgr.Backend on an
// object store (S3, GCS): the lock with its heartbeat and stale break, the
// state with conditional writes and lineage/serial checks, journal entries
// as objects, backups with retention, named objects (and the conditional
// writes on them that statemgr.Conditional offers), sealing with the
// Codec, and recognising Kyku's own writes that landed although their
// answer was lost. A provider (packages s3 and gcs) implements Bucket: a
// few calls on its store, and what its errors mean.
//
// It owns the object layout under the configured prefix:
//
//	<prefix>/state.<env>.json                         the state
//	<prefix>/state.<env>.json.lock                    the lock (LockInfo JSON)
//	<prefix>/state.<env>.json.journal/<seq>.json      one object per journal entry
//	<prefix>/backups/state.<env>.<UTC time>.<serial>.json
//	<prefix>/<key>                                    named objects (plans/…, runs/…)
//
// Safety comes from conditional requests, not from the lock alone: the lock
// is created only if absent, refreshed and released on the version read
// (an ETag, a generation), a stale lock is broken by a conditional
// overwrite so two breakers cannot both win, and the state is written on
// the version last read, so no update is lost even if a lock was wrongly
// broken. A conditional write that fails after a retry is read back: if the
// object holds exactly our bytes, the write was ours.
//
// Concurrency: a *Backend is safe for concurrent use by several goroutines;
// Read and Write are serialized and share the version last seen. Several
// processes (or several Backend values) may share one bucket: that is what
// the lock and the conditional writes are for. A held lock runs one
// heartbeat goroutine, stopped by Unlock.
package objstore
