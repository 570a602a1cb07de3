// Package buildinfo says which Kyku a binary is, as the engine records it
// (engine.Options.Version): the provider version of Kyku's own types, so
// that a plan after an upgrade of Kyku reads again what Kyku's new
// version may see differently, and no more. The CLI, the Action and the
// bot say it alike, so that one's plan after another's apply of the same
// release reads nothing.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// EngineVersion is version and commit joined ("v1.4.0 5f0c…"), what
// `kyku version` shows (cli.ReadVersion), each taken, when empty, from
// what Go recorded in the binary: its module version (a tag, or a pseudo-version
// built from the commit; "(devel)" when it cannot tell) and its VCS
// revision.
func EngineVersion(version, commit string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if version == "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && commit == "" {
				commit = s.Value
			}
		}
	}
	if version == "" {
		version = "(devel)"
	}
	return strings.TrimSpace(version + " " + commit)
}
