// Package deptest holds no code: its test checks the dependency rules of
// the layout (STYLE.md rule 13, after tailscale's deptest): the domain
// packages import only the standard library and each other, never an
// adapter (GitHub, AWS); the Action never links the App's authentication.
// Its other test checks that the repository stands on its own: no code or
// script reads beside the checkout, CI runs .ci/run on a plain checkout,
// and no compiled binary is tracked (build outputs are git-ignored).
// Its start-up tests hold what every command initialises before main to
// budgets, and its benchmarks measure `kyku version` against a Go hello
// world (testdata/startup holds the programs they build).
package deptest
