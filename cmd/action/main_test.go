package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/buildtest"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/github/webhooktest"
)

var binary string

// TestMain builds cmd/action once, with the flags of .ci/run and the
// release (so the build cache is shared), and the tests run the real binary
// the way the runner does.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kyku-action-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "kyku-action")
	build := buildtest.Command("-ldflags=-s -w", "-o", binary, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build cmd/action: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const (
	repoName = "Codertocat/Hello-World"
	head     = "e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1"
	config   = "provider: sim\nbackend: { type: local, path: .kyku-state }\nresources:\n  web:\n    type: Vm\n    properties: { image: debian-12, size: small }\n"
)

// localStateOptIn is the input the tests' workflow gives: their state is
// local, in the checkout, which the Action refuses unless told.
const localStateOptIn = "INPUT_LOCAL-STATE=allow"

// payload is the repository's pull_request.opened payload for PR 7 at head.
func payload(t *testing.T, dir string) string {
	t.Helper()
	ev := webhooktest.Decode(t, "pull_request.opened", func(ev map[string]any) {
		pr := ev["pull_request"].(map[string]any)
		ev["number"], pr["number"] = 7, 7
		pr["head"].(map[string]any)["sha"] = head
	})
	data, _ := json.Marshal(ev)
	p := filepath.Join(dir, "event.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runBinary runs the binary with the runner's environment and returns its exit
// code, log and GITHUB_OUTPUT.
func runBinary(t *testing.T, srv *githubtest.Server, dir string) (int, string, string) {
	t.Helper()
	out := filepath.Join(dir, "output")
	if err := os.WriteFile(out, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dir,
		"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=pull_request", "GITHUB_EVENT_PATH=" + payload(t, dir),
		"GITHUB_REPOSITORY=" + repoName, "GITHUB_API_URL=" + srv.APIURL(), "GITHUB_SERVER_URL=https://github.com",
		"GITHUB_RUN_ID=9", "GITHUB_WORKSPACE=" + filepath.Join(dir, "checkout"), "RUNNER_TEMP=" + dir,
		"GITHUB_OUTPUT=" + out, "GITHUB_STEP_SUMMARY=" + filepath.Join(dir, "summary.md"),
		"KYKU_SIM_DIR=" + filepath.Join(dir, "sim"),
		"INPUT_GITHUB-TOKEN=" + githubtest.Token, "INPUT_CONFIG=kyku.yaml", "INPUT_ENVIRONMENT=dev", localStateOptIn,
	}
	log, err := cmd.Output()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	outputs, _ := os.ReadFile(out)
	return code, string(log), string(outputs)
}

func newServer(t *testing.T, headConfig string) *githubtest.Server {
	srv := githubtest.NewServer(t)
	srv.AddRepo(repoName, "master")
	srv.SetFile(repoName, "master", "kyku.yaml", []byte(config))
	srv.SetFile(repoName, head, "kyku.yaml", []byte(headConfig))
	srv.AddPullRequest(repoName, githubtest.PullRequest{Number: 7, User: "Codertocat", HeadSHA: head})
	sameWorkflow(srv)
	return srv
}

// The workflow the binary runs in (GITHUB_WORKFLOW_REF): its inputs are the
// Action's review rules, the same before and after the tests' merges.
const (
	workflowFile = ".github/workflows/kyku.yml"
	pushBefore   = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e" // push.json's before
	workflowYAML = "on: [pull_request, push, issue_comment]\njobs: { kyku: { runs-on: ubuntu-latest, steps: [ { uses: kyku/action@v1 } ] } }\n"
)

func sameWorkflow(srv *githubtest.Server) {
	for _, ref := range []string{pushBefore, mergeSHA} {
		srv.SetFile(repoName, ref, workflowFile, []byte(workflowYAML))
	}
}

// TestBinaryPlansAPullRequest: the binary, given a runner's environment,
// comments the plan and writes the outputs; exit 0.
func TestBinaryPlansAPullRequest(t *testing.T) {
	srv := newServer(t, config)
	code, log, outputs := runBinary(t, srv, t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d; log:\n%s", code, log)
	}
	if n := len(srv.Comments(repoName, 7)); n != 1 {
		t.Errorf("%d comments, want 1", n)
	}
	for _, want := range []string{"creates<<", "\n1\n", "has-changes<<"} {
		if !strings.Contains(outputs, want) {
			t.Errorf("GITHUB_OUTPUT lacks %q:\n%s", want, outputs)
		}
	}
	if !strings.Contains(log, "::add-mask::"+githubtest.Token) {
		t.Errorf("the token is not masked:\n%s", log)
	}
}

// TestBinaryFailsOnConfigErrors: a bad config is an annotation and exit 1.
func TestBinaryFailsOnConfigErrors(t *testing.T) {
	srv := newServer(t, strings.Replace(config, "size: small", "size: small, colour: blue", 1))
	code, log, _ := runBinary(t, srv, t.TempDir())
	if code != 1 || !strings.Contains(log, "::error col=") || !strings.Contains(log, "file=kyku.yaml,line=6") {
		t.Fatalf("exit %d, want 1 with an annotation; log:\n%s", code, log)
	}
}
