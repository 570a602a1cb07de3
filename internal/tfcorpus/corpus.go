package tfcorpus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The files of a corpus entry beside its configuration.
const (
	GoldenFile = "tofu-plan.json" // OpenTofu's plan, normalised (Normalize)
	Step1Dir   = "step1"          // a configuration applied first: the plan starts from its state
	Step1State = "step1.tfstate"  // OpenTofu's state after applying step1, normalised
	EnvFile    = "corpus.env"     // NAME=value lines set in the environment of the plan (TF_VAR_…)
	ArgsFile   = "corpus.args"    // one argument of `tofu plan` a line (-var, -var-file)
)

// Entry is one configuration of the corpus.
type Entry struct {
	Name string
	Dir  string // the entry's directory: its configuration and the files below
	// PriorState is OpenTofu's state file the plan starts from (after
	// applying step1, workdir placeholder in place); nil for an empty state.
	PriorState []byte
	Env        []string // NAME=value
	Args       []string
	// Golden is OpenTofu's plan; for an entry OpenTofu refuses to plan
	// (ExpectErrorFile) it is empty and Errors are OpenTofu's errors.
	Golden Plan
	Errors []Diagnostic
}

// Load reads every entry under root (a directory per entry), sorted by
// name. An entry without a golden is an error: record it first.
func Load(root string) ([]Entry, error) {
	dirs, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("load corpus: %w", err)
	}
	var out []Entry
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		e, err := loadEntry(filepath.Join(root, d.Name()))
		if err != nil {
			return nil, fmt.Errorf("load corpus entry %s: %w", d.Name(), err)
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func loadEntry(dir string) (Entry, error) {
	e := Entry{Name: filepath.Base(dir), Dir: dir}
	var err error
	if _, statErr := os.Stat(filepath.Join(dir, ExpectErrorFile)); statErr == nil {
		data, err := os.ReadFile(filepath.Join(dir, DiagnosticsFile))
		if err != nil {
			return Entry{}, err
		}
		if e.Errors, err = ReadDiagnostics(data); err != nil {
			return Entry{}, err
		}
	} else {
		golden, err := os.ReadFile(filepath.Join(dir, GoldenFile))
		if err != nil {
			return Entry{}, err
		}
		if e.Golden, err = FromTofu(golden); err != nil {
			return Entry{}, err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, Step1Dir)); err == nil {
		if e.PriorState, err = os.ReadFile(filepath.Join(dir, Step1State)); err != nil {
			return Entry{}, fmt.Errorf("an entry with %s/ needs its state: %w", Step1Dir, err)
		}
	}
	if e.Env, err = readLines(filepath.Join(dir, EnvFile)); err != nil {
		return Entry{}, err
	}
	for _, kv := range e.Env {
		if name, _, ok := strings.Cut(kv, "="); !ok || name == "" {
			return Entry{}, fmt.Errorf("%s: %q is not NAME=value", EnvFile, kv)
		}
	}
	if e.Args, err = readLines(filepath.Join(dir, ArgsFile)); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// readLines are a file's lines, blank ones and #-comments left out; none
// when the file does not exist.
func readLines(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out, sc.Err()
}
