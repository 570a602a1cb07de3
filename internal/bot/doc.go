// Package bot owns the GitHub App front door: the webhook server (signature
// check, body cap, delivery dedupe, 202 with the work queued), the health,
// readiness and Prometheus endpoints, installation clients (App JWT →
// installation token via ghinstallation, one cached client per
// installation), repository settings read from the default branch, and the
// turning of events into jobs on a keyed queue.
//
// It also schedules drift checks: every Config.DriftInterval (jittered) a
// round lists the App's installations (App JWT) and their repositories
// (installation tokens) and queues, per repository, a job that reads the
// settings and config from the default branch and fans out one drift job
// per project/environment on that environment's key, so a drift check
// never overlaps a plan or apply of it. With a store one replica leads the
// schedule at a time, through a lease, and offers each round's checks to
// every replica (schedule.go); without, each replica runs its own. A
// repository_dispatch with event_type "kyku-drift" runs the same for one
// repository on demand. review.Drift keeps the one drift issue per
// environment.
//
// Durable jobs (durable.go, package jobs): with a store, a delivery is
// recorded before it is answered 202 and leased while its work is queued,
// running or following a dispatched run; a replica that dies leaves it for
// any other to take over once the lease expires, at start or on a later
// look, and run again from scratch, skipping the steps it recorded done.
//
// execution: actions (actions.go): each target is dispatched to the
// repository's workflow with a check run that follows the run the dispatch
// started (found by its dispatch-id among the App's own workflow_dispatch
// runs) and ends with its result, read from the Actions API.
//
// Tenancy: every workspace the bot opens for a repository goes through
// its operator policy (package policy, KYKU_BOT_POLICY): the config is
// confined to the repository's namespace "repo.<numeric ID>/" and to the
// buckets, roles and providers the policy grants, before the Opener sees
// it; a role is assumed through STS per repository. Webhooks without a
// well-formed signature are refused before their body is read. Pull
// requests from forks are never planned on their own.
//
// It implements no review rule: planning, `/kyku` commands, permissions,
// approvals, stale plans and rendering are package review's, shared with
// the Action. The bot decides which projects and environments an event
// concerns, serialises jobs per project/environment (in-process; across
// replicas the backend's state lock does it), and reports plans as check
// runs.
//
// Durable state lives only in the project's backend (S3 in production):
// saved plans, state, locks and audit records. Nothing on the bot's disk
// matters, so replicas can run behind a load balancer. A delivery runs
// once: by its X-GitHub-Delivery ID and by its signed body's digest (the
// signature does not cover the header, so a replayed body under a new ID
// is caught too), for a window (dedupe.go). With the bot's own store
// (KYKU_BOT_STORE, a bucket) these are claims in it (package claim: a
// conditional create), shared by every replica and kept across restarts;
// without one, in memory per replica.
//
// Concurrency: a *Bot is safe for concurrent use; its handler serves any
// number of requests; Shutdown may be called once, from any goroutine, and
// stops the drift loop before draining the queue, then stops following
// dispatched runs and gives back the leases of jobs not finished.
package bot
