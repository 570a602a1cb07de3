// Package policy owns the organisation's policy checks: Rego (v1) modules
// evaluated with the Open Policy Agent library against a plan. It loads the
// modules (files named by their repository path, so every position reads
// like the user's file), builds the input document from a plan, evaluates
// `data.kyku.deny` and `data.kyku.warn` under a deadline, and reports the
// messages, or the problem with its file:line:col as diag.Diagnostics.
//
// The input document is fixed (docs/review.md, "Policy checks", shows it):
//
//	input.environment  the environment planned ("" for the default one)
//	input.changes      the "changes" array of plan.json, a renamed type
//	                   (a second configuration of a Terraform provider)
//	                   under the provider's own name, the configuration's
//	                   in "localType"
//	input.resources    every resource of the configuration by name:
//	                   {"type": …, "properties": {…}} (type as above), the desired
//	                   properties with references to existing resources'
//	                   IDs resolved, other references left as written
//	                   ("${name.attr}"), sensitive values "(sensitive)"
//
// Evaluation cannot reach outside the process: http.send,
// net.lookup_ip_addr and opa.runtime (the process environment: tokens,
// keys) are refused at compile time, so a policy on a repository's default
// branch can neither read the Action's or the bot's secrets nor send the
// plan anywhere. Built-in errors are strict: a policy that errors fails
// the check instead of silently producing no denial.
//
// Which modules judge a pull request is the caller's choice (package
// review's rule: the default branch's, never the pull request's own).
//
// Concurrency: Evaluate is safe for concurrent use; a Set is read-only.
package policy
