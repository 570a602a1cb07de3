package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// simConfig is a configuration kyku runs without kyku-engine: the sim,
// local state.
const simConfig = "provider: sim\nresources:\n  net:\n    type: Vpc\n    properties: { cidr: 10.0.0.0/16 }\n"

// kykuIn copies the kyku under test into a directory of its own, with
// files beside it (name → content, executable), and returns its path.
func kykuIn(t *testing.T, beside map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	bin, err := os.ReadFile(kykuBin)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(dir, "kyku"), bin, 0o755))
	for name, content := range beside {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o755))
	}
	return filepath.Join(dir, "kyku")
}

// runBin runs bin with args in p's directory, with p's environment and
// extra, and returns its exit code and output.
func (p *project) runBin(bin string, extra []string, args ...string) (int, string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.t.Context(), 2*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, bin, args...)
	c.Dir = p.dir
	c.Env = append(append(os.Environ(), p.env...), extra...)
	out, err := c.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		p.t.Fatalf("%s %v: %v", bin, args, err)
	}
	return 0, string(out)
}

// planted is a script that leaves a mark where it ran: a file named like
// kyku-engine that kyku must never run.
func planted(mark string) string {
	return "#!/bin/sh\necho ran > " + mark + "\necho PLANTED\n"
}

// TestEngineIsOnlyTheOneBesideKyku: kyku runs only the kyku-engine in
// its own executable's directory, and only one of its own build; a file of
// that name in the working directory (a repository's) or on the PATH is
// never run, and without a kyku-engine beside it kyku runs a sim
// configuration itself and refuses, in one line naming kyku-engine, what
// needs it.
func TestEngineIsOnlyTheOneBesideKyku(t *testing.T) {
	p := newProject(t, simConfig)
	mark := filepath.Join(t.TempDir(), "ran")
	// A repository's kyku-engine, in the working directory and on the PATH.
	must(t, os.WriteFile(filepath.Join(p.dir, "kyku-engine"), []byte(planted(mark)), 0o755))
	path := []string{"PATH=" + p.dir + string(os.PathListSeparator) + os.Getenv("PATH")}

	alone := kykuIn(t, nil)
	if code, out := p.runBin(alone, path, "plan"); code != 0 || !strings.Contains(out, "net") {
		t.Errorf("kyku alone: plan of the sim: exit %d\n%s", code, out)
	}
	if code, out := p.runBin(alone, path, "version"); code != 0 || !strings.HasPrefix(out, "kyku "+testVersion+"\n") {
		t.Errorf("kyku alone: version: exit %d\n%s", code, out)
	}
	must(t, os.WriteFile(filepath.Join(p.dir, "kyku.yaml"), []byte("provider: aws\nresources: {}\n"), 0o644))
	code, out := p.runBin(alone, path, "plan")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 1 || len(lines) != 1 || !strings.Contains(out, "provider aws needs the AWS SDK") || !strings.Contains(out, "kyku-engine") {
		t.Errorf("kyku alone: plan of an aws configuration: exit %d, want 1 and one line naming kyku-engine:\n%s", code, out)
	}
	must(t, os.WriteFile(filepath.Join(p.dir, "kyku.yaml"), []byte(simConfig), 0o644))
	code, out = p.runBin(alone, path, "plan", "--policy", p.dir)
	if code != 1 || !strings.Contains(out, "--policy needs the Open Policy Agent") {
		t.Errorf("kyku alone: plan --policy: exit %d, want 1 naming kyku-engine:\n%s", code, out)
	}

	// Beside kyku: a script, and a file that only looks like a program.
	for name, beside := range map[string]map[string]string{
		"a script": {"kyku-engine": planted(mark)},
		"not Go":   {"kyku-engine": "\x7fELF not really"},
	} {
		bin := kykuIn(t, beside)
		code, out := p.runBin(bin, path, "plan")
		if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 1 || len(lines) != 1 || !strings.Contains(out, "kyku-engine") || !strings.Contains(out, "not run") {
			t.Errorf("%s beside kyku: plan: exit %d, want 1 and one line saying it is not run:\n%s", name, code, out)
		}
		// version and help are kyku's own, whatever is beside it.
		if code, out := p.runBin(bin, path, "version"); code != 0 || !strings.HasPrefix(out, "kyku "+testVersion+"\n") {
			t.Errorf("%s beside kyku: version: exit %d\n%s", name, code, out)
		}
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("a file named kyku-engine that is not kyku's was run")
	}
}

// TestEngineOfAnotherBuildIsRefused: a kyku-engine built otherwise than
// the kyku beside it (another version) is not run; kyku-engine started by
// a kyku of another build refuses in one line (run on its own, it is the
// whole command line).
func TestEngineOfAnotherBuildIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	p := newProject(t, simConfig)
	bin := kykuIn(t, map[string]string{"kyku-engine": string(otherVersionEngine(t))})
	code, got := p.runBin(bin, nil, "plan")
	if lines := strings.Split(strings.TrimSpace(got), "\n"); code != 1 || len(lines) != 1 || !strings.Contains(got, "is not a kyku-engine of this kyku's build") {
		t.Errorf("kyku beside a kyku-engine of another version: exit %d, want 1 and one line:\n%s", code, got)
	}
	ours := filepath.Join(filepath.Dir(kykuBin), "kyku-engine")
	code, got = p.runBin(ours, []string{"KYKU_ENGINE_BUILD=0123"}, "plan")
	if lines := strings.Split(strings.TrimSpace(got), "\n"); code != 1 || len(lines) != 1 || !strings.Contains(got, "the kyku that started kyku-engine is another build") {
		t.Errorf("kyku-engine started by a kyku of another build: exit %d, want 1 and one line:\n%s", code, got)
	}
	if code, got := p.runBin(ours, []string{"KYKU_ENGINE_BUILD="}, "plan"); code != 0 || !strings.Contains(got, "net") {
		t.Errorf("kyku-engine on its own: plan: exit %d\n%s", code, got)
	}
}
