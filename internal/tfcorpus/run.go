package tfcorpus

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
)

// Run is a corpus entry made ready to plan: its configuration copied to
// a directory of its own (the working directory: path.cwd, and what the
// configuration's relative paths are relative to).
type Run struct {
	Entry
	Workdir string
	// PriorState is the state file to plan from, with Workdir in place of
	// WorkdirPlaceholder; nil for an empty state.
	PriorState []byte
	// Mirror is an unpacked filesystem mirror holding every provider the
	// corpus uses (HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/executable).
	Mirror string
}

// Planner plans a run as `kyku plan --json` does, in Workdir, with the
// workspace "default", the run's Env set and Args given: it returns the
// plan document, or the errors the configuration is refused with (as
// diagnostics: file relative to Workdir, line, summary). err is for a
// failure of the harness, not of the configuration.
type Planner func(ctx context.Context, r Run) (planJSON []byte, refused []Diagnostic, err error)

// corpusFiles are an entry's files that are not its configuration.
var corpusFiles = []string{GoldenFile, Step1Dir, Step1State, DiagnosticsFile, ExpectErrorFile, EnvFile, ArgsFile}

// Prepare copies e's configuration into workdir (which must not exist
// yet or be empty) and returns the run, its prior state bound to workdir.
func Prepare(e Entry, workdir, mirror string) (Run, error) {
	r := Run{Entry: e, Workdir: workdir, Mirror: mirror}
	if e.PriorState != nil {
		r.PriorState = bytes.ReplaceAll(e.PriorState, []byte(WorkdirPlaceholder), []byte(workdir))
	}
	err := filepath.WalkDir(e.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(e.Dir, path)
		if err != nil {
			return err
		}
		if slices.Contains(corpusFiles, rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		dst := filepath.Join(workdir, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		return Run{}, fmt.Errorf("prepare corpus entry %s: %w", e.Name, err)
	}
	return r, nil
}

// providerSource finds a provider's source address ("hashicorp/random",
// "registry.opentofu.org/kyku/fwtest"), not a module's ("./modules/x").
var providerSource = regexp.MustCompile(`source"?\s*[=:]\s*"((?:[a-z0-9][a-z0-9.-]*/)?[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9-]*)"`)

// Providers are the provider sources an entry's configuration declares
// (required_providers, its modules' and step1's too), as written
// ("hashicorp/random", "kyku/fwtest"), sorted.
func (e Entry) Providers() ([]string, error) {
	seen := map[string]bool{}
	err := filepath.WalkDir(e.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(path) {
		case ".tf", ".tofu", ".json":
		default:
			return nil
		}
		if name := filepath.Base(path); name == GoldenFile || name == DiagnosticsFile {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range providerSource.FindAllSubmatch(data, -1) {
			seen[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("providers of corpus entry %s: %w", e.Name, err)
	}
	return sortedKeys(seen), nil
}
