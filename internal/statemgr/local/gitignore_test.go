package local

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

// git runs git in dir and returns its output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestGitIgnoreKeepsStateOutOfGit (issue 42): with Options.GitIgnore, the
// first file a Backend writes — state, a journal entry, a backup or an
// object — comes with a .gitignore in its directory, so `git add -A` in
// the repository around it adds nothing of it (state holds secrets in
// clear). A lock alone writes none (a plan leaves nothing behind), and a
// .gitignore already there is the user's and stays as it is.
func TestGitIgnoreKeepsStateOutOfGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	f := statemgrtest.NewState("lin-1", 1)
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, b *Backend) error
	}{
		{"state", func(t *testing.T, b *Backend) error {
			if _, err := b.Read(t.Context()); err != nil {
				return err
			}
			return b.Write(t.Context(), f, statemgr.WriteOptions{})
		}},
		{"journal", func(t *testing.T, b *Backend) error {
			return b.Append(t.Context(), state.Entry{Seq: 1, BaseSerial: 1, Lineage: "lin-1", Op: state.OpDelete, Name: "web"})
		}},
		{"backup", func(t *testing.T, b *Backend) error { _, err := b.Backup(t.Context(), f); return err }},
		{"object", func(t *testing.T, b *Backend) error {
			return b.PutObject(t.Context(), "plans/prod/pr-1.json", []byte("{}"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := t.TempDir()
			git(t, repo, "init", "-q")
			opts := fastOptions()
			opts.GitIgnore = true
			b := New(filepath.Join(repo, "infra", ".kyku-state"), "prod", opts)
			if err := tc.write(t, b); err != nil {
				t.Fatal(err)
			}
			git(t, repo, "add", "-A")
			if staged := git(t, repo, "diff", "--cached", "--name-only"); staged != "" {
				t.Errorf("git add -A staged local state:\n%s", staged)
			}
			if _, err := os.Stat(filepath.Join(repo, "infra", ".kyku-state", GitIgnoreName)); err != nil {
				t.Errorf("no .gitignore: %v", err)
			}
		})
	}

	t.Run("a lock alone writes nothing", func(t *testing.T) {
		root := t.TempDir()
		opts := fastOptions()
		opts.GitIgnore = true
		b := New(filepath.Join(root, ".kyku-state"), "", opts)
		l, err := b.Lock(t.Context(), statemgr.LockInfo{Operation: "plan"})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Unlock(t.Context()); err != nil {
			t.Fatal(err)
		}
		if entries, _ := os.ReadDir(root); len(entries) != 0 {
			t.Errorf("a lock that wrote nothing left %v", entries)
		}
	})

	t.Run("the user's .gitignore stays", func(t *testing.T) {
		dir := t.TempDir()
		const mine = "!state.json\n"
		if err := os.WriteFile(filepath.Join(dir, GitIgnoreName), []byte(mine), 0o644); err != nil {
			t.Fatal(err)
		}
		opts := fastOptions()
		opts.GitIgnore = true
		writeState(t, New(dir, "", opts), f)
		if got := string(readFile(t, filepath.Join(dir, GitIgnoreName))); got != mine {
			t.Errorf(".gitignore = %q, want the user's %q", got, mine)
		}
	})

	t.Run("without the option, none", func(t *testing.T) {
		dir := t.TempDir()
		writeState(t, New(dir, "", fastOptions()), f)
		if _, err := os.Stat(filepath.Join(dir, GitIgnoreName)); err == nil {
			t.Errorf("a .gitignore although Options.GitIgnore is off")
		}
	})
}
