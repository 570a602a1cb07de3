package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kyku/action/internal/acttest"
	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/buildtest"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/review"
)

// dispatchWorkflow is examples/workflows/kyku-dispatch.yml as the fake
// GitHub evaluates it: its workflow_dispatch inputs and run-name.
func dispatchWorkflow(t *testing.T, root string) (string, githubtest.Workflow) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "examples", "workflows", "kyku-dispatch.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Name    string `yaml:"name"`
		RunName string `yaml:"run-name"`
		On      struct {
			WorkflowDispatch struct {
				Inputs map[string]struct {
					Required bool `yaml:"required"`
				} `yaml:"inputs"`
			} `yaml:"workflow_dispatch"`
		} `yaml:"on"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	out := githubtest.Workflow{Name: wf.Name, RunName: wf.RunName}
	for name, in := range wf.On.WorkflowDispatch.Inputs {
		out.Inputs = append(out.Inputs, name)
		if in.Required {
			out.Required = append(out.Required, name)
		}
	}
	slices.Sort(out.Inputs)
	return string(data), out
}

// TestDispatchedWorkflowRunsInAct: execution: actions end to end. The bot
// (in process) dispatches examples/workflows/kyku-dispatch.yml for two
// pull requests; nektos/act, a real runner implementation, runs each
// dispatch's workflow_dispatch against this repository's action.yml, on
// the fake GitHub. The bot finds each run by its dispatch ID and ends each
// check run with the run's own result, read from the Actions API: the
// plan of a good change succeeds (and the Action's plan comment is on the
// pull request), the plan of a broken config fails.
func TestDispatchedWorkflowRunsInAct(t *testing.T) {
	if testing.Short() {
		t.Skip("act test")
	}
	act := acttest.Binary(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	actionBin := filepath.Join(dir, "kyku-action")
	if out, err := buildtest.Command("-o", actionBin, "../action").CombinedOutput(); err != nil {
		t.Fatalf("build cmd/action: %v\n%s", err, out)
	}
	wfYAML, wf := dispatchWorkflow(t, root)
	// The test's state is local (on this runner): the workflow accepts it.
	const dispatcher = "          dispatcher: kyku[bot]\n"
	if !strings.Contains(wfYAML, dispatcher) {
		t.Fatalf("the example workflow no longer has %q", dispatcher)
	}
	wfYAML = strings.Replace(wfYAML, dispatcher, dispatcher+"          local-state: allow\n", 1)
	stubs := acttest.Stubs(t, dir)

	const cfg = "provider: sim\nbackend: { type: local, path: .kyku-state }\nresources:\n  web:\n    type: Vm\n    properties: { image: debian-12 }\n"
	const good, broken = "aaaaaaa1111111111111111111111111111111aa", "bbbbbbb2222222222222222222222222222222bb"
	repo := filepath.Join(dir, "repo")
	for p, s := range map[string]string{".github/workflows/kyku.yml": wfYAML, "kyku.yaml": cfg} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", fixtureBranch}, {"add", "."}, {"commit", "-q", "-m", "infra"}, {"remote", "add", "origin", "https://github.com/" + fixtureRepo}} {
		c := exec.Command("git", args...)
		c.Dir = repo
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}

	key, keyPEM := appKey(t)
	gh := githubtest.NewServer(t)
	gh.SetApp(appID, &key.PublicKey, "kyku[bot]")
	gh.AddRepo(fixtureRepo, fixtureBranch)
	gh.SetRepoID(fixtureRepo, fixtureRepoID, time.Date(2025, 5, 15, 15, 19, 25, 0, time.UTC))
	gh.AddInstallation(1, "Codertocat", fixtureRepo)
	gh.SetWorkflow(fixtureRepo, "kyku.yml", wf)
	gh.SetFile(fixtureRepo, fixtureBranch, ".kyku/config.yaml", []byte("execution: actions\nworkflow: kyku.yml\nprojects:\n  - name: infra\n    config: kyku.yaml\n"))
	gh.SetFile(fixtureRepo, fixtureBranch, "kyku.yaml", []byte(cfg))
	gh.SetFile(fixtureRepo, good, "kyku.yaml", []byte(cfg+"  worker:\n    type: Vm\n    properties: { image: debian-12 }\n"))
	gh.SetFile(fixtureRepo, broken, "kyku.yaml", []byte(cfg+"  worker:\n    type: Vm\n    properties: { image: debian-12, colour: red }\n"))
	for n, sha := range map[int]string{7: good, 8: broken} {
		gh.AddPullRequest(fixtureRepo, githubtest.PullRequest{Number: n, User: "author", HeadSHA: sha, Files: []string{"kyku.yaml"}})
	}

	b, err := bot.New(bot.Options{
		Config: bot.Config{AppID: appID, PrivateKey: []byte(keyPEM), WebhookSecret: []byte(webhookSecret), APIURL: gh.APIURL(), Workers: 2},
		Open: func(context.Context, bot.Tenant, *config.Config, string) (*review.Workspace, error) {
			return nil, errors.New("execution: actions: the bot opens no workspace")
		},
		Logger:  slog.New(slog.DiscardHandler),
		Actions: bot.ActionsOptions{Poll: 50 * time.Millisecond, StartTimeout: 5 * time.Minute},
	})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- b.Run(t.Context()) }()
	srv := httptest.NewServer(b.Handler())
	defer srv.Close()
	defer func() {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		_ = b.Shutdown(ctx)
		if err := <-ran; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	p := &botProcess{t: t, url: srv.URL}
	p.deliver("pull_request", "d-7", prOpenedPayload(t, 7, good))
	p.deliver("pull_request", "d-8", prOpenedPayload(t, 8, broken))
	waitFor(t, "the bot dispatched no runs", func() bool { return len(gh.WorkflowRuns(fixtureRepo)) == 2 })

	// The runner: each dispatched run, run by act as GitHub would run it.
	for _, run := range gh.WorkflowRuns(fixtureRepo) {
		gh.UpdateWorkflowRun(fixtureRepo, run.ID, func(r *githubtest.WorkflowRun) { r.Status = "in_progress" })
		event, err := json.Marshal(map[string]any{
			"inputs": run.Inputs, "ref": "refs/heads/" + fixtureBranch, "workflow": ".github/workflows/kyku.yml",
			"repository": map[string]any{"id": fixtureRepoID, "name": "Hello-World", "full_name": fixtureRepo, "default_branch": fixtureBranch,
				"owner": map[string]any{"login": "Codertocat"}},
			"sender": map[string]any{"login": run.Actor, "type": "Bot"},
		})
		if err != nil {
			t.Fatal(err)
		}
		eventPath := filepath.Join(dir, "event.json")
		if err := os.WriteFile(eventPath, event, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		args := append([]string{"workflow_dispatch",
			"-W", filepath.Join(".github", "workflows", "kyku.yml"), "-e", eventPath, "--actor", run.Actor,
			"-P", "ubuntu-latest=-self-hosted",
			// No artifact server (the stand-in copies files): its fixed
			// port would clash with cmd/action's act test running beside.
			"--cache-server-addr", "127.0.0.1", "--cache-server-port", "0",
			"--local-repository", "kyku/action@v1=" + root,
			"--env", "KYKU_TEST_ARTIFACTS=" + filepath.Join(dir, "uploaded"),
			"-s", "GITHUB_TOKEN=" + githubtest.Token,
			"--env", "GITHUB_API_URL=" + gh.APIURL(),
			"--env", "KYKU_ACTION_BINARY=" + actionBin,
			"--env", "KYKU_SIM_DIR=" + filepath.Join(dir, "sim"),
		}, stubs...)
		cmd := exec.CommandContext(ctx, act, args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"))
		out, err := cmd.CombinedOutput()
		cancel()
		conclusion := "success"
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			conclusion = "failure"
		case err != nil:
			t.Fatalf("act: %v\n%s", err, out)
		}
		t.Logf("run %d (%s): act says %s", run.ID, run.DisplayTitle, conclusion)
		if run.Inputs["pr"] == "7" && conclusion != "success" {
			t.Errorf("the good change's run failed:\n%s", out)
		}
		if run.Inputs["pr"] == "8" && (conclusion != "failure" || !strings.Contains(string(out), "colour")) {
			t.Errorf("the broken config's run did not fail on it:\n%s", out)
		}
		gh.UpdateWorkflowRun(fixtureRepo, run.ID, func(r *githubtest.WorkflowRun) {
			r.Status, r.Conclusion = "completed", conclusion
			r.Jobs = []githubtest.WorkflowJob{{Name: "kyku", Status: "completed", Conclusion: conclusion}}
		})
	}

	checkRun := func(sha string) githubtest.CheckRun {
		var found []githubtest.CheckRun
		for _, c := range gh.CheckRuns(fixtureRepo) {
			if c.HeadSHA == sha && c.Name == "kyku plan (infra)" {
				found = append(found, c)
			}
		}
		if len(found) != 1 {
			t.Fatalf("check runs on %s: %+v, want one", sha[:7], found)
		}
		return found[0]
	}
	waitFor(t, "the check runs never ended", func() bool {
		return checkRun(good).Status == "completed" && checkRun(broken).Status == "completed"
	})
	for sha, want := range map[string]string{good: "success", broken: "failure"} {
		cr := checkRun(sha)
		if cr.Conclusion != want || !strings.Contains(cr.DetailsURL, "/actions/runs/") || !strings.Contains(cr.Summary, "| `kyku` | `"+want+"` |") {
			t.Errorf("check run on %s = %+v, want %s with the run linked", sha[:7], cr, want)
		}
	}
	var planComments int
	for _, c := range gh.Comments(fixtureRepo, 7) {
		if strings.Contains(c.Body, "<!-- kyku:plan") && strings.Contains(c.Body, good[:7]) {
			planComments++
		}
	}
	if planComments != 1 {
		t.Errorf("the Action's plan comment is not on PR 7: %+v", gh.Comments(fixtureRepo, 7))
	}
}
