package cli_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/state"
)

// TestExamplesStateIsGitIgnored: everything kyku writes for the
// repository's examples — local state in each backend's path, backups, the
// sim's cloud — is git-ignored by the repository's .gitignore (state holds
// the resolved configuration, examples/environments' database password
// included). In a scratch repository holding the examples and the
// .gitignore, each example is planned and applied (on the sim) or has
// state written to its backend (the clouds' examples, which need
// credentials to apply, and those using a Terraform provider, which needs
// installing), for every environment it declares; git status
// then shows nothing untracked that is not ignored.
func TestExamplesStateIsGitIgnored(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=kyku", "-c", "user.email=kyku@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	copyFile := func(from, to string) {
		t.Helper()
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	copyFile(filepath.Join("..", "..", ".gitignore"), filepath.Join(repo, ".gitignore"))
	examples, err := filepath.Glob(filepath.Join("..", "..", "examples", "*", "kyku.yaml"))
	if err != nil || len(examples) < 4 {
		t.Fatalf("examples: %v %v", examples, err)
	}
	for _, e := range examples {
		copyFile(e, filepath.Join(repo, "examples", filepath.Base(filepath.Dir(e)), "kyku.yaml"))
	}
	git("add", "-A")
	git("commit", "-qm", "examples")

	env := map[string]string{"NO_COLOR": "1", "KYKU_VAR_dbPass": "correct-horse-battery"}
	run := func(args ...string) {
		t.Helper()
		var out, errOut bytes.Buffer
		code := cli.Run(t.Context(), args, cli.Env{
			Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return env[k] },
			Providers: provider.Registry{"sim": sim.Factory}, // the clouds' examples never reach their provider here
		})
		if code != 0 {
			t.Fatalf("kyku %v: exit %d\n%s%s", args, code, out.String(), errOut.String())
		}
	}
	for _, e := range examples {
		dir := filepath.Join(repo, "examples", filepath.Base(filepath.Dir(e)))
		path := filepath.Join(dir, "kyku.yaml")
		files, err := config.ReadFiles(path)
		if err != nil {
			t.Fatal(err)
		}
		cfgs, err := config.ParseEach(files, config.Inputs{Getenv: func(k string) string { return env[k] }})
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		for _, cfg := range cfgs {
			args := []string{"-c", path}
			if cfg.Environment != "" {
				args = append(args, "-e", cfg.Environment)
			}
			if cfg.Provider.Name == "sim" && len(cfg.Providers) == 0 {
				run(append([]string{"plan"}, args...)...)
				run(append([]string{"apply", "--auto-approve"}, args...)...)
				continue
			}
			data, err := state.Encode(state.New("", "lineage-"+cfg.Environment, cfg.Environment))
			if err != nil {
				t.Fatal(err)
			}
			pushed := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(pushed, data, 0o600); err != nil {
				t.Fatal(err)
			}
			run(append([]string{"state", "push", pushed}, args...)...)
		}
	}
	ignored := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(git("status", "--porcelain", "--ignored", "-uall")), "\n") {
		status, p, _ := strings.Cut(line, " ")
		switch status {
		case "!!":
			if parts := strings.SplitN(p, "/", 3); len(parts) == 3 && parts[0] == "examples" {
				ignored[parts[1]] = true
			}
		case "??":
			t.Errorf("%s is written by kyku and not git-ignored: add its directory to .gitignore", p)
		default:
			t.Errorf("git status: %q", line)
		}
	}
	for _, e := range examples {
		if name := filepath.Base(filepath.Dir(e)); !ignored[name] {
			t.Errorf("nothing ignored was written for examples/%s: did the test write its state?", name)
		}
	}
}
