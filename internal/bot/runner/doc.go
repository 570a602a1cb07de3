// Package runner owns the bot's job runner: the keyed work queue (package
// queue) and, with a store, the durable jobs (package jobs) that survive
// the replica that accepted them.
//
// Durable jobs: a delivery is recorded before it is answered 202 (Accept),
// with a lease this replica renews while any of its work is queued,
// running or watching a dispatched run. A delivery's work is its routing
// job and the jobs it spawns (Spawn), one per target; each spawned job is
// a step of the record, marked done when it ends, so that a job taken over
// after its worker died runs only the steps not done yet — from scratch: a
// plan is planned again, an apply judged again under the state lock
// (package review re-checks everything), a dispatched run watched again
// rather than dispatched twice. A replica that dies leaves its jobs for
// any other to take over once their leases expire: Run looks for them at
// start, every third of a lease and whenever a job ends here, as many as it
// has idle workers, and runs each again only when its body carries the
// webhook secret's signature (a record planted in the store is not run).
// Every state lock a durable job's work takes names the job and its lease
// (statemgr.Successor), so that the replica that takes the job over takes
// over the lock its predecessor left.
//
// Concurrency: a *Runner is safe for concurrent use and keeps package
// lifecycle's contract. Shutdown drains the queue (Drain), then stops
// renewing leases and gives back the ones still held (jobs dropped before
// they ran, watches stopped), so that another replica takes them over at
// once: stop the parts that hold leases (the dispatch watchers) between
// Drain and Shutdown.
package runner
