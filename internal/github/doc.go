// Package github is the GitHub REST layer shared by the Action and the bot:
// a go-github wrapper bound to one repository, with only the calls the
// use cases make (sticky comments by marker, reactions, permissions and
// approvals, pull request lookups, drift issues, check runs, source
// tarballs, workflow dispatch), and RetryTransport, which waits out rate
// limits and retries transient server errors.
//
// The caller builds the *github.Client (the Action with a token, the bot
// with ghinstallation) — NewClient sets the API base URL and installs
// RetryTransport — and binds it to a repository with New. Every method takes
// a context and wraps its errors with what was being done; a 404 also wraps
// ErrNotFound.
//
// Kyku only ever edits, folds or reads back comments and issues written by
// the account it writes as (Self): a comment carrying Kyku's marker but
// written by anyone else is left alone and never read. That account comes
// from the token itself (GraphQL viewer: graphql.go), from SetSelf, or
// from the first comment created without knowing it; it is never guessed.
// GraphQL also tells who last edited a comment (LastEdit).
//
// Concurrency: a *Repo holds no mutable state besides the last rate-limit
// figure (atomic) and the account it writes as (found once, under a
// mutex), so it is safe for concurrent use when its client is.
package github
