// Package review owns the rules of reviewing infrastructure changes on
// GitHub, shared by the Action and the bot (one implementation of each
// rule): plan a pull request (sticky comment showing the plan's
// ChangesDigest, saved plan keyed by PR number and head SHA, redacted
// plan.json), answer `/kyku` comments (who may plan: Authorize), check the
// apply requirements (permission; approvals that count: latest decision,
// current head, approver permission, not the author, not a bot, not a
// pusher; a saved plan for the current head), plan again from the
// approved commit and apply that fresh plan only when it equals the saved
// plan and the plan shown in Kyku's own comment — a comment that must be
// exactly what Kyku posted, as recorded in the backend (posted.go) — write
// an audit record, apply on merge (judged by the rules from before it:
// CheckMergeRules, from what the front door says in Deps.MergeRules) as
// the apply mode says (ApplyMode), and keep one drift issue per
// environment (what it last said recorded in the backend too). Only how
// an event arrives and how the front door authenticates differ between the
// Action and the bot; they build a Deps and call these functions, and
// carry out what they answer: a refusal names its Requirement, and every
// text comes from one render function (refusals.go, replies.go; golden
// files in testdata/).
//
// Trust: the default branch's config opens the backend; a pull request's
// head supplies only the resources; a saved plan, an artifact or a comment
// a pull request's workflow could have written is compared, never applied
// as it is. docs/security.md has the whole model.
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
