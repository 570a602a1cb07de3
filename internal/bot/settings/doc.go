// Package settings owns a repository's bot settings, `.kyku/config.yaml`
// on the default branch: the projects (config path, environments, autoplan
// globs), the apply rules (require-approval, required-approvals,
// approver-permission, apply-permission, apply on comment and/or on
// merge), who may plan (plan-permission; allow-fork-prs), the comment mode and where jobs run
// (in-process or dispatched to GitHub Actions), and the scheduled drift
// check (enabled, write-state). Parsing is strict: unknown
// keys, wrong types and bad values are diagnostics with file:line:col, all
// collected. It is pure: no I/O.
//
// Concurrency: a parsed *Settings is immutable and safe to share.
package settings
