package workspace

import (
	"path/filepath"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr/local"
)

// Beside a configuration, Kyku keeps what it writes apart from what people
// write:
//
//   - StateDirName (.kyku-state): what Kyku writes and nobody commits —
//     local state, its journal, lock and backups, saved plans and audit
//     records, the sim's cloud, the Terraform providers it fetched. It
//     holds secrets in clear; the .gitignore Kyku writes in it keeps it out
//     of git.
//   - SettingsDirName (.kyku): what a team writes and commits — the bot's
//     config.yaml and the policies (policies/*.rego).
//
// Before, both lived in .kyku, git-ignored as a whole, and a repository's
// settings were left out of `git add -A`. A configuration that still has
// local state there is moved over on its next run (layoutmove.go).
const (
	StateDirName    = ".kyku-state"
	SettingsDirName = ".kyku"
)

// owner is what a file Kyku kept in .kyku belongs to: moved only when
// that owner is at its default place.
type owner uint8

const (
	ownsState     owner = 1 << iota // the local backend
	ownsSimCloud                    // the sim's cloud
	ownsProviders                   // the Terraform providers fetched
)

// legacyOwner says which owner a name Kyku wrote in .kyku belongs to; ok
// is false for any other name (the settings, a user's own file), which
// stays. The lock is not among them: it is held while moving, not moved.
func legacyOwner(name string) (owner, bool) {
	switch name {
	case "backups", "plans", "runs", "drift":
		return ownsState, true
	case "sim":
		return ownsSimCloud, true
	case "providers":
		return ownsProviders, true
	}
	if rest, ok := strings.CutPrefix(name, "state"); ok && (rest == ".json" || rest == ".journal" ||
		strings.HasPrefix(rest, ".") && (strings.HasSuffix(rest, ".json") || strings.HasSuffix(rest, ".journal"))) {
		return ownsState, true
	}
	return 0, false
}

// defaultOwners are the owners whose place this configuration and these
// settings leave at the default, under BaseDir: the files of the others
// are where the configuration says, and stay.
func (s Settings) defaultOwners(cfg *config.Config) owner {
	var o owner
	if s.StateDir == "" && (cfg.Backend == nil || (cfg.Backend.Type == "" || cfg.Backend.Type == "local") && cfg.Backend.Path == "") {
		o |= ownsState
	}
	name := cfg.Provider.Name
	if s.Provider != "" {
		name = s.Provider
	}
	getenv := s.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if _, set := cfg.Provider.Settings["dir"]; (name == "" || name == "sim") && !set && getenv(sim.EnvDir) == "" {
		o |= ownsSimCloud
	}
	if s.Plugins.CacheDir == "" {
		o |= ownsProviders
	}
	return o
}

// ignoreProviderCache keeps .kyku-state out of git before the Terraform
// providers Kyku fetches are written there (the default cache): its
// .gitignore, unless one exists.
func (s Settings) ignoreProviderCache() error {
	if s.Plugins.CacheDir != "" || s.BaseDir == "" {
		return nil
	}
	return local.WriteGitIgnore(filepath.Join(s.BaseDir, StateDirName))
}
