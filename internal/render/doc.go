// Package render turns plans, apply results and drift reports into what
// people and tools read: the seed's human plan text (kyku plan), the --json
// plan, the redacted plan.json artifact, and GitHub-flavoured markdown for
// PR comments, job summaries, check-run output and drift issues.
//
// It is pure: values in, bytes or strings out, no I/O beyond the io.Writer a
// caller passes, no clock and no environment. Output is deterministic for a
// given input (maps are sorted before rendering) and golden-tested.
//
// Secrets: every renderer shows a sensitive PropChange value, and a sensitive
// output, as plan.Masked. No renderer here ever emits a sensitive value in
// clear; RedactPlan produces a plan safe to publish as an artifact.
//
// Markdown renderers escape user-controlled text (names, types, values,
// errors) so that it cannot break the layout or inject HTML, and never
// return more than the limit the caller passes (GitHub: 65,536 characters
// for a comment, 1 MiB for a step summary). Limits count bytes, which is
// never fewer than GitHub's character count.
//
// Concurrency: every function is safe for concurrent use; none keeps state.
package render
