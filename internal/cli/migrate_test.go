package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/statemgr/tflayout"
)

// migrateRoots lays out, beside the recorded root (estate, a no-op in
// both its workspaces), roots that are not: one whose configuration
// drifted from its state, one whose configuration does not parse, one
// whose state is a format OpenTofu 1.12 no longer writes, and a
// directory without .tf files. It returns the kyku and the directory
// holding them.
func migrateRoots(t *testing.T) (*kyku, string) {
	t.Helper()
	k, _ := tofuRoot(t, "estate")
	recorded := filepath.Join("testdata", "tfroots", "estate")
	for _, name := range []string{"drifted", "oldstate"} {
		copyTree(t, recorded, filepath.Join(k.dir, name))
		if code, out, errOut := k.run("", "init", "-c", filepath.Join(k.dir, name)); code != 0 {
			t.Fatalf("init %s: exit %d\n%s%s", name, code, out, errOut)
		}
	}
	main := filepath.Join(k.dir, "drifted", "main.tf")
	data, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(main, strings.Replace(string(data), `default = "v1"`, `default = "v9"`, 1))
	write(filepath.Join(k.dir, "broken", "main.tf"), "resource \"fwtest_item\" \"x\" {\n  name = \n}\n")
	if err := os.RemoveAll(filepath.Join(k.dir, "oldstate", "terraform.tfstate.d")); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(k.dir, "oldstate", "terraform.tfstate"), `{"version": 3, "serial": 1, "lineage": "x", "modules": []}`)
	write(filepath.Join(k.dir, "notes", "README.md"), "not a root\n")
	return k, k.dir
}

// TestMigrateCheck: the table lists each root and workspace with the
// resources in its state and whether it is a no-op, what would change,
// or a one-line error naming the root's file; the exit is 0 only when
// every root is a no-op, 2 when some plan changes, 1 when one fails.
func TestMigrateCheck(t *testing.T) {
	k, dir := migrateRoots(t)
	// The roots are given as absolute paths, which the table aligns on:
	// the golden has them relative, columns two spaces apart.
	columns := regexp.MustCompile(` {2,}`)
	rel := func(out string) string {
		return columns.ReplaceAllString(strings.ReplaceAll(out, dir+string(filepath.Separator), ""), "  ")
	}
	for _, tt := range []struct {
		name  string
		roots []string
		file  string
		code  int
	}{
		{"no-op", []string{"estate"}, "migrate-check-noop.golden", 0},
		{"drifted", []string{"estate", "drifted"}, "migrate-check-drifted.golden", 2},
		{"broken", []string{"estate", "drifted", "broken", "oldstate", "notes"}, "migrate-check-broken.golden", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"migrate", "check"}
			for _, r := range tt.roots {
				args = append(args, filepath.Join(dir, r))
			}
			code, out, errOut := k.run("", append(args, "--state-dir", "")...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, out, errOut)
			}
			golden(t, tt.file, rel(out))
		})
	}
}

// TestMigrateCheckReadsOnly: migrate check takes no lock and writes
// nothing: it says no-op while OpenTofu (here a lock of its layout)
// holds the root's lock, where kyku plan refuses, and every file stays
// as it was.
func TestMigrateCheckReadsOnly(t *testing.T) {
	k, root := tofuRoot(t, "estate")
	b, err := local.NewTerraform(local.TerraformConfig{Dir: root}, "", tflayout.Options{LockTimeout: -1}, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lock, err := b.Lock(t.Context(), statemgr.LockInfo{Operation: "OperationTypeApply", Who: "tofu@runner"})
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock(t.Context())
	before := snapshot(t, root)
	code, out, errOut := k.run("", "migrate", "check", root, "--state-dir", "", "--lock-timeout", "0")
	if code != 0 || !strings.Contains(out, "every one plans no changes") {
		t.Errorf("migrate check while the lock is held: exit %d\n%s%s", code, out, errOut)
	}
	if d := cmp.Diff(before, snapshot(t, root)); d != "" {
		t.Errorf("migrate check changed files (-before +after):\n%s", d)
	}
	code, _, errOut = k.run("", "plan", "-c", root, "--lock-timeout", "0")
	if code != 1 || !strings.Contains(errOut, "tofu@runner") {
		t.Errorf("kyku plan while the lock is held: exit %d, want 1 naming the holder\n%s", code, errOut)
	}
}
