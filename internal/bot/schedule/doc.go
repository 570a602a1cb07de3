// Package schedule owns the drift scheduler: every interval (jittered) a
// round lists the App's installations and their repositories and has each
// repository that is not archived checked for drift (the check itself is
// the caller's: Options.Check, a routing job that reads the repository's
// settings and fans out one drift job per project and environment).
//
// Without a store each replica runs its own schedule, queueing the checks
// on its own queue (Round). With one (Options.Store), one replica leads the
// schedule at a time, through a lease, and offers each round's checks to
// every replica (jobs.Store.Offer): the replica holding the lease
// schedule/drift.lease.json leads. It keeps the schedule's record,
// schedule/drift.json — when the next round is due, which round was
// started and which was offered completely — and, when a round is due,
// offers one job per repository, keyed by round and repository, so a round
// offered twice records each repository once. Every replica takes offered
// jobs as it has idle workers, so the checks of a round are spread over
// the replicas and survive the leader. A leader that dies stops renewing:
// another replica takes the lease once it has expired — it tries again at
// the holder's deadline — and goes on from the record, so a round is
// neither skipped nor run twice for a leader change; one that died while
// offering a round leaves it unfinished in the record, and the next leader
// offers it again (repositories whose check already ended may be checked
// twice, none is skipped). A replica whose interval is 0 never leads, and
// still takes the checks.
//
// Concurrency: a *Scheduler is safe for concurrent use and keeps package
// lifecycle's contract; Shutdown abandons a round being listed (its checks
// already queued or offered still run) and gives the lease back.
package schedule
