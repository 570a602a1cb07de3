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

// inDir runs the binary in dir, with the sim's default directory (no
// KYKU_SIM_DIR): its cloud lives next to the configuration too.
func inDir(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, kykuBin, args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "NO_COLOR=1", "KYKU_SIM_DIR=", "KYKU_RETRY_BASE=1ms")
	out, err := c.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatalf("kyku %v: %v", args, err)
	}
	return 0, string(out)
}

// TestStateFollowsTheConfiguration: applied inside infra/, the same
// configuration planned from the repository root (by file and by
// directory) finds the same state and the same cloud, and plans nothing;
// an apply there changes nothing.
func TestStateFollowsTheConfiguration(t *testing.T) {
	repo := t.TempDir()
	infra := filepath.Join(repo, "infra")
	if err := os.MkdirAll(infra, 0o755); err != nil {
		t.Fatal(err)
	}
	const cfg = "provider: sim\nbackend: { type: local, path: state }\nresources:\n  net:\n    type: Vpc\n    properties: { cidr: 10.0.0.0/16 }\n  web:\n    type: Vm\n    properties: { network: \"${net}\", image: debian-12 }\n"
	if err := os.WriteFile(filepath.Join(infra, "kyku.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := inDir(t, infra, "apply", "--auto-approve"); code != 0 || !strings.Contains(out, "Apply complete: 2 succeeded") {
		t.Fatalf("apply in infra/: exit %d\n%s", code, out)
	}
	for _, c := range []string{"infra/kyku.yaml", "infra"} {
		if code, out := inDir(t, repo, "plan", "-c", c, "--detailed-exitcode"); code != 0 || !strings.Contains(out, "No changes.") {
			t.Errorf("plan -c %s from the root: exit %d\n%s", c, code, out)
		}
	}
	if code, out := inDir(t, filepath.Join(repo, ".."), "apply", "--auto-approve", "-c", filepath.Join(filepath.Base(repo), "infra", "kyku.yaml")); code != 0 || strings.Contains(out, "Apply complete") {
		t.Errorf("apply from above the root: exit %d\n%s", code, out)
	}
	for _, stray := range []string{filepath.Join(repo, "state"), filepath.Join(repo, ".kyku-state"), filepath.Join(repo, ".kyku")} {
		if _, err := os.Stat(stray); err == nil {
			t.Errorf("%s was written: state or cloud beside the working directory", stray)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(infra, ".kyku-state", "sim", "*", "*.json")); len(files) != 2 {
		t.Errorf("the sim's cloud next to the configuration holds %v, want the Vpc and the Vm", files)
	}
}

// TestStateAtTheFormerPlaceIsRefused: state an older kyku wrote relative
// to the working directory is not silently ignored (which would create
// everything again): the command refuses, saying how to move it; moved as
// told, the configuration plans no changes.
func TestStateAtTheFormerPlaceIsRefused(t *testing.T) {
	repo := t.TempDir()
	infra := filepath.Join(repo, "infra")
	if err := os.MkdirAll(infra, 0o755); err != nil {
		t.Fatal(err)
	}
	const cfg = "provider: sim\nresources:\n  net:\n    type: Vpc\n    properties: { cidr: 10.0.0.0/16 }\n"
	if err := os.WriteFile(filepath.Join(infra, "kyku.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := inDir(t, infra, "apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, out)
	}
	// Where an older kyku, run from the root, kept state and cloud.
	if err := os.Rename(filepath.Join(infra, ".kyku-state"), filepath.Join(repo, ".kyku-state")); err != nil {
		t.Fatal(err)
	}
	code, out := inDir(t, repo, "plan", "-c", "infra/kyku.yaml")
	if code != 1 || !strings.Contains(out, "kyku: local state for this configuration is at .kyku-state") ||
		!strings.Contains(out, "move it there (mv .kyku-state infra/.kyku-state)") || strings.Count(out, "\n") != 1 {
		t.Fatalf("plan with state at the former place: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(infra, ".kyku-state")); err == nil {
		t.Error("the refused plan created infra/.kyku-state")
	}
	if err := os.Rename(filepath.Join(repo, ".kyku-state"), filepath.Join(infra, ".kyku-state")); err != nil {
		t.Fatal(err)
	}
	if code, out := inDir(t, repo, "plan", "-c", "infra/kyku.yaml", "--detailed-exitcode"); code != 0 {
		t.Errorf("plan after the move: exit %d\n%s", code, out)
	}
}

// TestCommandsDoNotDependOnTheWorkingDirectory: run from a directory
// holding another configuration and its state (.kyku, the sim's cloud),
// every command on a configuration elsewhere says exactly what it says
// run from an empty directory: validate reports the same positioned
// errors, and nothing takes the other configuration's state for this
// one's. Validate says the same from beside a .kyku left without its
// configuration too. An apply from there writes beside its configuration
// only.
func TestCommandsDoNotDependOnTheWorkingDirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(dir, cfg string) string {
		t.Helper()
		d := filepath.Join(root, dir)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if cfg != "" {
			if err := os.WriteFile(filepath.Join(d, "kyku.yaml"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	const other = "provider: sim\nresources:\n  net:\n    type: Vpc\n    properties: { cidr: 10.0.0.0/16 }\n"
	const bad = "provider: sim\nresources:\n  net:\n    type: Vpc\n    properties: { cidr: 10.0.1.0/16 }\n" +
		"  sg:\n    type: SecurityGroup\n    properties:\n      network: \"${net}\"\n      ingress:\n        - { port: 70000, cidr: everywhere }\n"
	const good = "provider: sim\nresources:\n  net:\n    type: Vpc\n    properties: { cidr: 10.0.0.0/16 }\n" +
		"  sg:\n    type: SecurityGroup\n    properties:\n      network: \"${net}\"\n      ingress:\n        - { port: 443, cidr: 0.0.0.0/0 }\noutputs:\n  net: \"${net}\"\n"
	busy, empty := write("busy", other), write("empty", "")
	write("bad", bad)
	write("good", good)
	if code, out := inDir(t, busy, "apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply of the other configuration: exit %d\n%s", code, out)
	}
	before, err := os.ReadFile(filepath.Join(busy, ".kyku-state", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	// A .kyku without its configuration, as an older kyku left it: the
	// state commands refuse it as the former place of the state
	// (TestStateAtTheFormerPlaceIsRefused); validate reads no state.
	orphan := write("orphan", "")
	if err := os.CopyFS(filepath.Join(orphan, ".kyku"), os.DirFS(filepath.Join(busy, ".kyku-state"))); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args   []string
		code   int
		want   string
		orphan bool // also run from the orphaned .kyku's directory
	}{
		{[]string{"validate", "-c", "../bad/kyku.yaml"}, 1, "kyku: 3 errors", true},
		{[]string{"validate", "-c", "../good"}, 0, "The configuration is valid", true},
		{[]string{"plan", "-c", "../good", "--detailed-exitcode"}, 2, "2 to create", false},
		{[]string{"graph", "-c", "../good"}, 0, "digraph", false},
		{[]string{"output", "-c", "../good"}, 0, "", false},
		{[]string{"refresh", "-c", "../good", "--report-only"}, 0, "No drift: 0 resources", false},
		{[]string{"state", "list", "-c", "../good"}, 0, "", false},
		{[]string{"init", "-c", "../good"}, 0, "nothing to install", false},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			wantCode, wantOut := inDir(t, empty, tt.args...)
			dirs := []string{busy}
			if tt.orphan {
				dirs = append(dirs, orphan)
			}
			for _, d := range dirs {
				if code, out := inDir(t, d, tt.args...); code != wantCode || out != wantOut {
					t.Errorf("from %s: exit %d\n%s\nfrom an empty directory: exit %d\n%s", filepath.Base(d), code, out, wantCode, wantOut)
				}
			}
			if wantCode != tt.code || !strings.Contains(wantOut, tt.want) {
				t.Errorf("exit %d, want %d with %q\n%s", wantCode, tt.code, tt.want, wantOut)
			}
		})
	}
	for _, d := range []string{"bad", "good"} {
		if _, err := os.Stat(filepath.Join(root, d, ".kyku-state")); err == nil {
			t.Errorf("%s/.kyku-state was written by a command that writes nothing", d)
		}
	}
	if code, out := inDir(t, busy, "apply", "--auto-approve", "-c", "../good"); code != 0 || !strings.Contains(out, "Apply complete: 2 succeeded") {
		t.Fatalf("apply from a directory holding another configuration: exit %d\n%s", code, out)
	}
	if code, out := inDir(t, empty, "plan", "-c", "../good", "--detailed-exitcode"); code != 0 {
		t.Errorf("plan after that apply, from elsewhere: exit %d\n%s", code, out)
	}
	if after, _ := os.ReadFile(filepath.Join(busy, ".kyku-state", "state.json")); string(after) != string(before) {
		t.Error("the other configuration's state changed")
	}
}
