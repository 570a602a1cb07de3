// Package markdown owns markdown safety: how text a user, a repository or
// a provider controls (a name, a value, an error, a URL) is put in GitHub
// markdown so that it cannot add markup, break out of a code span, block
// or table, open HTML or a link, or mention anyone. It is the only place
// these rules are written; render, review and the front doors use it.
//
// It decides escaping only: how long a text may be, and how it is cut, is
// the caller's. Functions are pure and safe for concurrent use.
package markdown
