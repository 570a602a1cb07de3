// Package dispatch owns the dispatch watchers (execution: actions): each
// target the bot hands to the repository's own workflow has a check run,
// opened before the dispatch, that a watch follows to the run's end and
// ends with that run's conclusion.
//
// The run is found by the dispatch's own input dispatch-id (random, one per
// dispatch), which the workflow shows in its run-name; of the workflow's
// runs only one from a workflow_dispatch, started by the App's own account
// (actor and triggering actor), on the default branch's head commit counts
// — nothing else can start a run as the App, so no other run, whatever it
// is named, completes the bot's check run. The dispatch names the branch by
// its full ref (refs/heads/<branch>): a short one resolves to a tag of the
// same name first, and a run's head_branch reads the same for both, so the
// run must also be on the commit the branch pointed at when Kyku
// dispatched; a run on another commit ends the check run as not Kyku's.
// What the check run says comes from the Actions API read with the App's
// token (the run's conclusion, its jobs'), never from anything the run
// writes; a workflow_run delivery only makes a watch look sooner (Nudge).
// A dispatch GitHub refused is reported at once (Refused); one whose run
// does not appear within Timing.StartTimeout, then.
//
// Each watch is a goroutine of Watchers, and a part of the durable job that
// started it (Jobs): a watch stopped before its run ended is taken over
// and watched again by whichever replica takes the job over; without a
// store nothing takes it over, and its check run says so.
//
// Concurrency: a *Watchers is safe for concurrent use and keeps package
// lifecycle's contract: Shutdown stops every watch and waits for them.
package dispatch
