// Package lifecycle holds the start/stop contract every long-lived part of
// the bot keeps (the webhook intake, the job runner, the drift scheduler,
// the dispatch watchers, and the Bot that wires them):
//
//   - Run(ctx) runs the part once, until Shutdown asks it to stop or ctx
//     ends; when ctx ends first the part stops at once, as Shutdown does
//     when its own context has ended. It returns nil when Shutdown stopped
//     it, ctx's error when ctx did.
//   - Shutdown(ctx) may be called at any time, from any goroutine, before
//     Run too (Run then returns at once); it stops the part gracefully and
//     returns when Run has returned, or with ctx's error when ctx ends
//     first.
//
// A Gate keeps the part's side of it: whether Run began, asked to stop,
// ended.
//
// Concurrency: a *Gate is safe for concurrent use.
package lifecycle
