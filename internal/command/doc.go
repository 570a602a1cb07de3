// Package command owns the `/kyku …` comment commands: it finds the command
// line in a PR comment body and parses it into a Command (plan, apply, help,
// with -e/--env and -p/--project; apply also takes --allow-destroy-all, the
// explicit word a plan that destroys every resource needs). It only parses; who may run what is the
// caller's business.
//
// A command is the first line of its own that starts with /kyku (after at
// most three spaces) outside code and quotes: not in fenced or indented
// code (four spaces or a tab), <pre>, <code> and the like, an inline code
// span running over lines, a quote (and its lazy continuation) or an HTML
// comment (scan.go), so that quoting, code examples, pasted logs and
// hidden text never trigger anything. Environment and project names are validated here, so a caller
// can put them into storage keys and markers; error messages may still echo
// what the user typed and must be escaped before they are rendered.
//
// Pure; every function is safe for concurrent use.
package command
