package deptest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// repoRoot is the checkout's top directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// trackedFiles lists the files git tracks below root (slash-separated,
// relative to it); the test skips outside a git checkout. A file may be
// listed yet deleted in the work tree.
func trackedFiles(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): nothing to scan", err)
	}
	return strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
}

// TestNothingReadsBesideTheCheckout: no tracked code or script names a path
// beside the checkout (../shared and the like). The one reader of GitHub's
// example payloads beside the checkout, webhooktest.Shared, is optional
// and its tests skip without it.
func TestNothingReadsBesideTheCheckout(t *testing.T) {
	root := repoRoot(t)
	allowed := []string{
		"internal/github/webhooktest/webhooktest.go", "internal/deptest/standalone_test.go",
		// TestSharedPayloadsDecode, through webhooktest.Shared.
		"internal/action/event_internal_test.go", "internal/bot/events_internal_test.go",
	}
	needles := [][]byte{[]byte("../shared"), []byte(`"..", "shared"`), []byte(`"..", "..", "..", "shared"`)}
	for _, f := range trackedFiles(t, root) {
		ext := filepath.Ext(f)
		isScript := ext == ".sh" || ext == ".yml" || ext == ".yaml" || strings.HasPrefix(f, ".ci/")
		if (ext != ".go" && !isScript) || slices.Contains(allowed, f) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue // listed but deleted in the work tree
		}
		for _, n := range needles {
			if bytes.Contains(data, n) {
				t.Errorf("%s refers to %s: tests and scripts must read only inside the repository", f, n)
			}
		}
	}
}

// TestCIRunsOnAPlainCheckout: ci.yml checks out the repository as it is
// (no path, nothing placed beside it) on ubuntu-latest and runs .ci/run,
// caching the tools it builds; dependabot keeps Go modules and the
// workflows' actions current.
func TestCIRunsOnAPlainCheckout(t *testing.T) {
	root := repoRoot(t)
	var wf struct {
		Jobs map[string]struct {
			RunsOn string `yaml:"runs-on"`
			Steps  []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	readYAML(t, filepath.Join(root, ".github", "workflows", "ci.yml"), &wf)
	job, ok := wf.Jobs["ci"]
	if !ok || job.RunsOn != "ubuntu-latest" {
		t.Fatalf("ci.yml: want a job ci on ubuntu-latest, got %+v", wf.Jobs)
	}
	var checkout, cache, run bool
	for _, s := range job.Steps {
		switch {
		case strings.HasPrefix(s.Uses, "actions/checkout@"):
			checkout = true
			if p := s.With["path"]; p != "" {
				t.Errorf("ci.yml: checkout into %q; want the plain checkout at the workspace root", p)
			}
		case strings.HasPrefix(s.Uses, "actions/cache@"):
			cache = strings.Contains(s.With["path"], "kyku-ci")
		case strings.Contains(s.Run, ".ci/run"):
			run = true
		}
		if strings.Contains(s.Run, "shared") {
			t.Errorf("ci.yml: a step refers to shared/: %q", s.Run)
		}
	}
	if !checkout || !cache || !run {
		t.Errorf("ci.yml: checkout %v, tool cache %v, .ci/run %v; want all", checkout, cache, run)
	}

	var dep struct {
		Version int `yaml:"version"`
		Updates []struct {
			Ecosystem string `yaml:"package-ecosystem"`
			Directory string `yaml:"directory"`
			Schedule  struct {
				Interval string `yaml:"interval"`
			} `yaml:"schedule"`
		} `yaml:"updates"`
	}
	readYAML(t, filepath.Join(root, ".github", "dependabot.yml"), &dep)
	got := map[string]bool{}
	for _, u := range dep.Updates {
		if u.Directory == "/" && u.Schedule.Interval != "" {
			got[u.Ecosystem] = true
		}
	}
	if dep.Version != 2 || !got["gomod"] || !got["github-actions"] {
		t.Errorf("dependabot.yml: version %d, ecosystems %v; want version 2 with gomod and github-actions at /", dep.Version, got)
	}
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestTestBuildsShareVetsSettings: a test, or a helper of tests, that
// builds a binary goes through buildtest.Command, whose settings are vet's
// in .ci/run, or builds with -race, whose packages go test -race compiled.
// A plain `go build` in a test compiles the whole tree once more on a cold
// machine (minutes of .ci/run).
func TestTestBuildsShareVetsSettings(t *testing.T) {
	root := repoRoot(t)
	for _, f := range trackedFiles(t, root) {
		if !strings.HasSuffix(f, ".go") || strings.HasPrefix(f, "internal/buildtest/") || strings.Contains("/"+f, "/testdata/") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue // listed but deleted in the work tree
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, `"go", "build"`) && !strings.Contains(line, `"-race"`) {
				t.Errorf("%s:%d: a go build outside buildtest.Command (build with its settings, or -race): %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
