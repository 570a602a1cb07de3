package webhooktest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Dir is where the fixtures live, relative to the module root.
const Dir = "testdata/github-events"

// unqualified drops the last dot-separated part of name when it is a
// qualifier of GitHub's example sets: "with-…" (".with-installation",
// ".with-organization", ".with-pull-requests") or a number (".1").
func unqualified(name string) (string, bool) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return "", false
	}
	q := name[i+1:]
	if strings.HasPrefix(q, "with-") {
		return name[:i], true
	}
	if _, err := strconv.Atoi(q); err == nil {
		return name[:i], true
	}
	return "", false
}

var (
	rootOnce sync.Once
	root     string
	rootErr  error
	cache    sync.Map // file path -> []byte
)

// ModuleRoot is the directory holding go.mod, found by walking up from the
// working directory.
func ModuleRoot() (string, error) {
	rootOnce.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			rootErr = fmt.Errorf("find module root: %w", err)
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				root = dir
				return
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				rootErr = errors.New("find module root: no go.mod above the working directory")
				return
			}
			dir = parent
		}
	})
	return root, rootErr
}

// EventsDir is the absolute path of the fixtures directory.
func EventsDir(t testing.TB) string {
	t.Helper()
	r, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(r, filepath.FromSlash(Dir))
}

// Resolve maps a payload name to a fixture file name (with ".json") among
// names, the fixtures that exist; ok is false when none matches.
func Resolve(name string, names []string) (file string, ok bool) {
	base := strings.TrimSuffix(name, ".json")
	candidates := []string{base}
	if b, ok := unqualified(base); ok {
		candidates = append(candidates, b)
	}
	for _, c := range candidates {
		if slices.Contains(names, c) {
			return c + ".json", true
		}
	}
	return "", false
}

// Names lists the fixtures (file names without ".json"), sorted.
func Names(t testing.TB) []string {
	t.Helper()
	names, err := names(EventsDir(t))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func names(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list webhook fixtures: %w", err)
	}
	var out []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok && e.Type().IsRegular() {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Path is the absolute path of the fixture for name; the test fails when
// there is none.
func Path(t testing.TB, name string) string {
	t.Helper()
	dir := EventsDir(t)
	file, ok := Resolve(name, Names(t))
	if !ok {
		t.Fatalf("no webhook fixture %q in %s (testdata/README.md says how to add one)", name, Dir)
	}
	return filepath.Join(dir, file)
}

// Payload is the raw fixture for name.
func Payload(t testing.TB, name string) []byte {
	t.Helper()
	p := Path(t, name)
	if data, ok := cache.Load(p); ok {
		return slices.Clone(data.([]byte))
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("webhook fixture %s vanished: %v", p, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	cache.Store(p, data)
	return slices.Clone(data)
}

// Decode is the fixture for name as a generic JSON object, after mutate
// (when not nil) changed it.
func Decode(t testing.TB, name string, mutate func(p map[string]any)) map[string]any {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal(Payload(t, name), &p); err != nil {
		t.Fatalf("decode webhook fixture %s: %v", name, err)
	}
	if mutate != nil {
		mutate(p)
	}
	return p
}

// Object walks into the nested objects of a decoded payload along path
// (Object(p, "pull_request", "head") is p["pull_request"]["head"]), for
// mutations of a fixture; it panics where path does not lead to objects.
func Object(p map[string]any, path ...string) map[string]any {
	for _, k := range path {
		p = p[k].(map[string]any)
	}
	return p
}

// Event is the event name a fixture file is for: the part before the first
// dot ("pull_request" for "pull_request.closed.merged.json").
func Event(name string) string {
	ev, _, _ := strings.Cut(filepath.Base(name), ".")
	return ev
}

// Action is the action a fixture file is for: the part after the first dot
// up to the next, "" when there is none ("closed" for
// "pull_request.closed.merged.json", "" for "push.json").
func Action(name string) string {
	_, rest, _ := strings.Cut(strings.TrimSuffix(filepath.Base(name), ".json"), ".")
	act, _, _ := strings.Cut(rest, ".")
	return act
}

// Covers reports whether a fixture among names is for event and, unless
// action is "", for that action.
func Covers(names []string, event, action string) bool {
	for _, n := range names {
		if Event(n) == event && (action == "" || Action(n) == action) {
			return true
		}
	}
	return false
}

// Shared is the directory of GitHub's published example payloads when a
// checkout of them happens to sit beside the repository
// (../shared/testdata/github-events), else "". Nothing depends on it: the
// one test that reads it skips when it is missing.
func Shared() string {
	r, err := ModuleRoot()
	if err != nil {
		return ""
	}
	dir := filepath.Join(filepath.Dir(r), "shared", "testdata", "github-events")
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return ""
	}
	return dir
}
