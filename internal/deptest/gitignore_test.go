package deptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGitIgnoreKeepsSettingsAndDropsState (issue 42): with the
// repository's .gitignore, `git add -A` adds a project's settings
// (.kyku/config.yaml, .kyku/policies/*.rego) and none of its local state:
// not .kyku-state/, nor what an older kyku left in .kyku/ before a run
// moved it.
func TestGitIgnoreKeepsSettingsAndDropsState(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ignore, err := os.ReadFile(filepath.Join(repoRoot(t), ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	staged := []string{
		".gitignore", "kyku.yaml", ".kyku/config.yaml", ".kyku/policies/ssh.rego",
		"examples/quickstart/.kyku/policies/sizes.rego",
	}
	ignored := []string{
		".kyku-state/state.json", ".kyku-state/sim/Vm/1.json", "examples/quickstart/.kyku-state/state.json",
		".kyku/state.json", ".kyku/state.prod.json", ".kyku/state.prod.journal", ".kyku/.kyku.lock",
		".kyku/backups/b.json", ".kyku/plans/prod/pr-1.json", ".kyku/sim/Vm/1.json", ".kyku/providers/p/terraform-provider-null",
	}
	files := map[string]bool{} // path → staged
	for _, f := range staged {
		files[f] = true
	}
	for _, f := range ignored {
		files[f] = false
	}
	for name := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		content := []byte("x\n")
		if name == ".gitignore" {
			content = ignore
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	git("add", "-A")
	got := map[string]bool{}
	for name := range files {
		got[name] = false
	}
	for _, name := range strings.Fields(git("diff", "--cached", "--name-only")) {
		got[name] = true
	}
	if d := cmp.Diff(files, got); d != "" {
		t.Errorf("git add -A (true: staged) (-want +got):\n%s", d)
	}
}
