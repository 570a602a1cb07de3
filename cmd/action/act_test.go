package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/acttest"
	"github.com/kyku/action/internal/github/githubtest"
)

// TestActRunsTheExampleWorkflow runs examples/workflows/kyku.yml on a pull
// request with nektos/act, a real runner implementation, in host mode:
// `uses: kyku/action@v1` resolves to this repository's action.yml (the
// composite: install step, INPUT_* wiring, outputs, the artifact step), the
// binary is the one TestMain built, and GitHub is the fake. act runs
// offline here, so actions/upload-artifact@v4 resolves to a local
// stand-in that copies its `path` into a directory named by its `name`.
// The workflow is the example with an id on the Kyku step, input
// local-state: allow (the test's state is local), and one step that
// prints its outputs.
func TestActRunsTheExampleWorkflow(t *testing.T) {
	act := acttest.Binary(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile(filepath.Join(root, "examples", "workflows", "kyku.yml"))
	if err != nil {
		t.Fatal(err)
	}
	wf := string(example)
	const uses = "      - uses: kyku/action@v1\n"
	if !strings.Contains(wf, uses) {
		t.Fatalf("the example workflow no longer has %q", uses)
	}
	wf = strings.Replace(wf, uses, "      - id: kyku\n        uses: kyku/action@v1\n", 1)
	// The test's state is local (on this runner): the workflow accepts it.
	const with = "        with:\n          config: infra/kyku.yaml\n"
	if !strings.Contains(wf, with) {
		t.Fatalf("the example workflow no longer has %q", with)
	}
	wf = strings.Replace(wf, with, with+"          local-state: allow\n", 1)
	wf += "      - name: outputs\n        run: echo \"KYKU-OUTPUTS creates=${{ steps.kyku.outputs.creates }} has-changes=${{ steps.kyku.outputs.has-changes }} comment-url=${{ steps.kyku.outputs.comment-url }} plan-file=${{ steps.kyku.outputs.plan-file }}\"\n"

	// The user's repository: the workflow and the config, committed.
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const cfg = "provider: sim\nbackend: { type: local, path: .kyku-state }\nresources:\n  web:\n    type: Vm\n    properties: { image: debian-12, size: small, userData: act-s3cr3t }\n  worker:\n    type: Vm\n    properties: { image: debian-12 }\n"
	stubs := acttest.Stubs(t, dir)
	write(filepath.Join(repo, ".github", "workflows", "kyku.yml"), wf)
	write(filepath.Join(repo, "infra", "kyku.yaml"), cfg)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-q", "-m", "infra")
	git("remote", "add", "origin", "https://github.com/"+repoName)

	srv := githubtest.NewServer(t)
	srv.AddRepo(repoName, "master")
	srv.SetFile(repoName, "master", "infra/kyku.yaml", []byte(cfg))
	srv.SetFile(repoName, head, "infra/kyku.yaml", []byte(cfg))
	srv.AddPullRequest(repoName, githubtest.PullRequest{Number: 7, User: "Codertocat", HeadSHA: head})
	event := payload(t, dir)

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	args := append([]string{"pull_request",
		"-W", filepath.Join(".github", "workflows", "kyku.yml"), "-e", event,
		"-P", "ubuntu-latest=-self-hosted",
		"--artifact-server-path", filepath.Join(dir, "artifacts"), "--artifact-server-addr", "127.0.0.1",
		"--cache-server-addr", "127.0.0.1",
		"--local-repository", "kyku/action@v1=" + root,
		"--env", "KYKU_TEST_ARTIFACTS=" + filepath.Join(dir, "uploaded"),
		"-s", "GITHUB_TOKEN=" + githubtest.Token,
		"--env", "GITHUB_API_URL=" + srv.APIURL(),
		"--env", "KYKU_ACTION_BINARY=" + binary,
		"--env", "KYKU_SIM_DIR=" + filepath.Join(dir, "sim"),
	}, stubs...)
	cmd := exec.CommandContext(ctx, act, args...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"))
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		t.Fatalf("act: %v\n%s", err, log.String())
	}
	out := log.String()
	if n := len(srv.Comments(repoName, 7)); n != 1 {
		t.Errorf("%d plan comments on the PR, want 1; act log:\n%s", n, out)
	}
	for _, want := range []string{"KYKU-OUTPUTS creates=2 has-changes=true comment-url=http", "plan.json"} {
		if !strings.Contains(out, want) {
			t.Errorf("act log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, githubtest.Token) || strings.Contains(out, "act-s3cr3t") {
		t.Errorf("the act log shows the token or the sensitive value")
	}
	uploaded, err := os.ReadFile(filepath.Join(dir, "uploaded", "kyku-plan-prod", "plan.json"))
	if err != nil {
		t.Fatalf("plan.json was not uploaded as artifact kyku-plan-prod: %v\n%s", err, out)
	}
	if !strings.Contains(string(uploaded), `"environment": "prod"`) || strings.Contains(string(uploaded), "act-s3cr3t") {
		t.Errorf("the uploaded plan.json is not the redacted plan for prod:\n%s", uploaded)
	}
}
