package workspace

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/kyku/action/internal/provider/sim"
)

// State follows the configuration: a relative local backend path (and the
// default .kyku-state), and the sim's dir setting (and its default
// .kyku-state/sim),
// are relative to Settings.BaseDir, the configuration's directory, so the
// same configuration finds the same state from any working directory. A
// path from the environment (KYKU_SIM_DIR) or a command-line flag is the
// caller's, relative to the working directory as such paths always are.
//
// Before, these paths were relative to the working directory (the Action's
// checkout for its backend). State found only there is not used: Open
// refuses with a *MovedStateError saying how to move it. Using it with a
// notice would keep where the state lives depending on where kyku runs:
// the next run from elsewhere would find none and create everything again.
// A former place that holds a configuration of its own (a kyku.yaml) is
// not looked at: its state is that configuration's, now as before, and
// never this one's to move. The former place of a default is looked at
// under both names, .kyku-state and the older .kyku (layout.go).

// MovedStateError says that this configuration's state (or the sim's
// cloud) is found only where kyku kept it before it followed the
// configuration, and how to move it. Nothing was read or written.
type MovedStateError struct {
	What     string // "local state" or "the sim's cloud"
	Old, New string // the directories, as the user would type them
	// Files, when set, are what to move of Old (an older .kyku, which
	// may hold settings too).
	Files []string
}

func (e *MovedStateError) Error() string {
	how := "mv " + e.Old + " " + e.New
	if len(e.Files) > 0 {
		how = "move " + strings.Join(e.Files, ", ") + " from " + e.Old + " into " + e.New
	} else if _, err := os.Stat(e.New); err == nil {
		how = "move what " + e.Old + " holds into " + e.New
	}
	return e.What + " for this configuration is at " + e.Old + ", where kyku kept it before state followed the configuration; " +
		"it now lives next to the configuration, in " + e.New + ". Nothing was read or written: move it there (" + how +
		"), or give its path explicitly"
}

// IsMovedState reports whether err is a *MovedStateError.
func IsMovedState(err error) bool {
	var m *MovedStateError
	return errors.As(err, &m)
}

// localDir resolves a local backend's directory (dir as configured) and
// refuses state found only at its former place.
func localDir(dir, env string, s Settings) (string, error) {
	if filepath.IsAbs(dir) || s.BaseDir == "" {
		return dir, nil
	}
	now := filepath.Join(s.BaseDir, dir)
	before := s.former(dir)
	stem := "state"
	if env != "" {
		stem += "." + env
	}
	has := func(d string) bool {
		return exists(filepath.Join(d, stem+".json")) || exists(filepath.Join(d, stem+".journal"))
	}
	if s.checkFormer() && !samePath(now, before) && !has(now) && has(before) {
		return "", &MovedStateError{What: "local state", Old: shown(before), New: shown(now)}
	}
	if legacy := s.former(SettingsDirName); dir == StateDirName && s.checkFormer() &&
		!samePath(filepath.Join(s.BaseDir, SettingsDirName), legacy) && !has(now) && has(legacy) {
		files, err := (&mover{owners: ownsState}).held(legacy)
		if err != nil {
			return "", err
		}
		return "", &MovedStateError{What: "local state", Old: shown(legacy), New: shown(now), Files: files}
	}
	return now, nil
}

// simSettings is the sim's settings with its directory resolved: a
// relative dir setting, or the default when neither it nor KYKU_SIM_DIR
// is set, under s.BaseDir. A cloud found only at the former place is
// refused.
func simSettings(settings map[string]string, s Settings, getenv func(string) string) (map[string]string, error) {
	if s.BaseDir == "" {
		return settings, nil
	}
	dir, set := settings["dir"]
	switch {
	case set && filepath.IsAbs(dir):
		return settings, nil
	case !set && getenv(sim.EnvDir) != "":
		return settings, nil // the caller's path, relative to the working directory
	case !set:
		dir = sim.DefaultDir
	}
	now := filepath.Join(s.BaseDir, dir)
	befores := []string{s.former(dir)}
	if !set {
		befores = append(befores, s.former(filepath.Join(SettingsDirName, "sim"))) // an older default
	}
	for _, before := range befores {
		if s.checkFormer() && !samePath(now, before) && !samePath(filepath.Join(s.BaseDir, SettingsDirName, "sim"), before) &&
			!hasObjects(now) && hasObjects(before) {
			return nil, &MovedStateError{What: "the sim's cloud", Old: shown(before), New: shown(now)}
		}
	}
	out := maps.Clone(settings)
	if out == nil {
		out = map[string]string{}
	}
	out["dir"] = now
	return out, nil
}

// former is where the relative path dir pointed before it followed the
// configuration: under FormerBaseDir, or the working directory.
func (s Settings) former(dir string) string {
	if s.FormerBaseDir == "" {
		return dir
	}
	return filepath.Join(s.FormerBaseDir, dir)
}

// checkFormer reports whether the former place is looked at: not when
// Settings.NoFormerCheck says so, nor when it holds a configuration of
// its own (its kyku.yaml), whose state its .kyku is.
func (s Settings) checkFormer() bool {
	return !s.NoFormerCheck && !exists(s.former(defaultConfig))
}

// defaultConfig is the configuration a directory holds when kyku runs
// there without -c.
const defaultConfig = "kyku.yaml"

// hasObjects reports whether a sim cloud directory holds an object.
func hasObjects(dir string) bool {
	found, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	return len(found) > 0
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// shown is path relative to the working directory when it is below it.
func shown(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, abs); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return abs
}
