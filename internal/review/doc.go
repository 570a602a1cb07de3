// Package review owns the rules of reviewing infrastructure changes on
// GitHub, shared by the Action and the bot (one implementation of each
// rule): plan a pull request (sticky comment, saved plan keyed by PR number
// and head SHA, redacted plan.json), answer `/kyku` comments, check the
// apply requirements (permission, approval on the current head by someone
// other than the author, a saved plan for the current head that is not
// stale), apply exactly the saved plan and write an audit record, apply on
// merge, and keep one drift issue per environment. Only how an event
// arrives and how the front door authenticates differ between the Action
// and the bot; they build a Deps and call these functions.
//
// Concurrency: functions are safe to call concurrently for different
// environments; the state lock serialises work on one environment.
//
// Who sees what: every refusal and every apply result is answered on the
// pull request (a new comment under the command, tagged with
// render.ApplyMarker), and the /kyku comment gets reactions: eyes when the
// work starts, then rocket (applied), +1 (planned), -1 (a requirement
// failed: nothing was applied) or confused (an error). Sensitive values never
// reach a comment, a summary, the redacted plan.json or an audit record.
package review
