// Package cliproc is what a kyku process does around cli.Run, shared by
// the two executables the CLI ships as (docs/architecture.md, "Two
// executables"): kyku, which links no cloud SDK and no policy engine and
// answers version and help itself, and kyku-engine beside it, which links
// them and runs every other command. It owns the process: interrupts and
// SIGPIPE, the garbage collector's budget (gc.go), the developers'
// profiles (profile.go), and the check that kyku-engine is the same build
// as the kyku that starts it (build.go). It is used once per process, from
// main.
package cliproc
