// Package cli owns the kyku command line: flags, subcommands, prompts, exit
// codes (0 ok, 1 error, 2 changes with --detailed-exitcode) and what is
// printed. It reads nothing from the process directly: stdin, stdout,
// stderr, the environment and the provider registry are injected (Env), so
// the whole CLI is testable in-process. One Run at a time per Env.
package cli
