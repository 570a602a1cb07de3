// Package envname owns the rule every environment name obeys: letters,
// digits, '_' and '-', not starting with '-', at most MaxLen characters
// (the empty name is the default environment). An environment name becomes
// part of state file names, backend keys, saved plan keys and comment
// markers, so every front door (CLI flag, Action input, bot settings,
// /kyku commands, the Go API), the configuration's declared environments,
// the engine and the workspace check it with Check; nothing else decides
// what a name may hold.
//
// Pure; safe for concurrent use.
package envname
