// Package bot owns the GitHub App front door and wires it from parts that
// start and stop themselves (package lifecycle's Run/Shutdown):
//
//   - intake: POST /webhook — signature, body cap, delivery dedupe, and
//     the 202 once the job is taken;
//   - runner: the keyed job queue and, with a store (KYKU_BOT_STORE), the
//     durable jobs a replica that dies leaves for another to take over;
//   - schedule: the drift schedule, one per replica or, with a store, led
//     by one replica at a time through a lease;
//   - dispatch: the watchers of the workflow runs dispatched under
//     execution: actions.
//
// The Bot itself only wires them, with the health, readiness and
// Prometheus endpoints, to its router (router.go), which turns events into
// jobs: it reads a repository's settings from its default branch, decides
// which projects and environments an event concerns, and spawns one job per
// target: a pull request's on a key of its own, so that different pull
// requests' jobs run at once where the state has leases (one on a state
// without them is requeued on the target's key, pulljobs.go), other jobs
// on the target's key, so that they never overlap (in-process; across
// replicas the backend's state lock or leases do it). Installation clients (App JWT → installation token, one cached
// client per installation) are installations.go's. A repository_dispatch
// with event_type "kyku-drift" checks one repository on demand.
//
// Tenancy: every workspace the bot opens for a repository goes through
// its operator policy (package tenancy, KYKU_BOT_POLICY): the config is
// confined to the repository's namespace "repo.<numeric ID>/" and to the
// buckets, roles and providers the policy grants, before the Opener sees
// it; a role is assumed through STS per repository. Pull requests from
// forks are never planned on their own.
//
// It implements no review rule: planning, `/kyku` commands, permissions,
// approvals, stale plans, drift issues and rendering are package review's,
// shared with the Action. Durable state lives only in the projects'
// backends and the bot's own store: nothing on the bot's disk matters, so
// replicas can run behind a load balancer.
//
// Concurrency: a *Bot is safe for concurrent use; its handler serves any
// number of requests. Run runs the parts until Shutdown, which stops them
// in turn — the intake, the drift schedule, the queue's drain, the
// watchers, then the leases given back — and may be called from any
// goroutine, before Run too.
package bot
