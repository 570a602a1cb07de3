package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOldLayoutIsMovedWithANotice (issue 42): a project whose state an
// older kyku kept in .kyku, beside the repository's settings. The next
// command moves it to .kyku-state, saying so in one line on stderr, and
// finds the same state (the plan has no changes); the command after it
// says nothing.
func TestOldLayoutIsMovedWithANotice(t *testing.T) {
	k := newKyku(t, cfg)
	c := filepath.Join(k.dir, "kyku.yaml")
	if code, out, errOut := k.run("", "apply", "--auto-approve", "-c", c, "--state-dir", filepath.Join(k.dir, ".kyku")); code != 0 {
		t.Fatalf("apply into the old layout: exit %d\n%s%s", code, out, errOut)
	}
	settings := filepath.Join(k.dir, ".kyku", "config.yaml")
	if err := os.WriteFile(settings, []byte("execution: actions\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := k.run("", "plan", "-c", c)
	if code != 0 || !strings.Contains(out, "No changes.") {
		t.Fatalf("plan after the move: exit %d\n%s%s", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "kyku: moved local state from "+filepath.Join(k.dir, ".kyku")+" to "+filepath.Join(k.dir, ".kyku-state")+" (") {
		t.Errorf("stderr is not the one notice:\n%s", errOut)
	}
	if _, err := os.Stat(filepath.Join(k.dir, ".kyku-state", "state.json")); err != nil {
		t.Errorf("the state was not moved: %v", err)
	}
	if _, err := os.Stat(settings); err != nil {
		t.Errorf("the settings did not stay: %v", err)
	}
	if code, _, errOut := k.run("", "plan", "-c", c); code != 0 || errOut != "" {
		t.Errorf("the next plan: exit %d, stderr %q", code, errOut)
	}
}
