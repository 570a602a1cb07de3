package action_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
)

// Configurations whose state is local: a local backend, and none at all.
const (
	localBackendYAML = "provider: sim\nbackend: { type: local, path: .kyku-state }\nresources:\n  web:\n    type: Vm\n    properties: { image: debian-12 }\n"
	noBackendYAML    = "provider: sim\nresources:\n  web:\n    type: Vm\n    properties: { image: debian-12 }\n"
	// s3BackendYAML names an S3 endpoint nothing listens on: a run that
	// opened it would fail on the connection, not on local state.
	s3BackendYAML = "provider: sim\nbackend: { type: s3, bucket: acme-state, region: eu-west-1, endpoint: \"http://127.0.0.1:1\", usePathStyle: true }\nresources:\n  web:\n    type: Vm\n    properties: { image: debian-12 }\n"
)

// refusedForLocalState checks that r failed at its start with one error
// line that names input local-state, and that nothing was written: no
// comment on pull request 2, no state in the checkout, no cloud object.
func (f *fixture) refusedForLocalState(t *testing.T, r result, where string) {
	t.Helper()
	wantCode(t, r, 1)
	var errs []string
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(line, "::error") {
			errs = append(errs, line)
		}
	}
	if len(errs) != 1 {
		t.Fatalf("%d error lines, want 1; log:\n%s", len(errs), r.stdout)
	}
	for _, want := range []string{configPath, "(at " + where + ")", "vanish with the runner", "s3, gcs, spaces or http backend", "input local-state: allow"} {
		if !strings.Contains(errs[0], want) {
			t.Errorf("the error lacks %q:\n%s", want, errs[0])
		}
	}
	if !strings.Contains(r.summary, "input local-state: allow") {
		t.Errorf("the job summary does not say why:\n%s", r.summary)
	}
	if c := f.srv.Comments(repoName, 2); len(c) != 0 {
		t.Errorf("commented although refused: %+v", c)
	}
	if _, err := os.Stat(filepath.Join(f.configDir(), ".kyku-state")); err == nil {
		t.Errorf("local state written in the checkout although refused")
	}
	if c := f.cloudObjects(t); len(c) != 0 {
		t.Errorf("the cloud changed although refused: %v", c)
	}
}

// TestLocalStateIsRefusedOnARunner (issue 42): state in a local backend
// (configured, or by default) vanishes with the runner, and with it the
// saved plan a merge applies. Without input local-state: allow, every
// command — a pull request's plan, the apply of a merge or of /kyku
// apply, a scheduled refresh, command plan on a push — fails at its
// start with one line naming the input, and writes nothing.
func TestLocalStateIsRefusedOnARunner(t *testing.T) {
	schedule := scheduleEvent
	for _, cfg := range []struct{ name, yaml, where string }{
		{"a local backend", localBackendYAML, ":2 ("},
		{"no backend", noBackendYAML, "has no backend, so its state is local"},
	} {
		for _, tc := range []struct {
			name  string
			where string // the ref named in the refusal
			run   func(t *testing.T, f *fixture) result
		}{
			{"plan of a pull request", defaultRef, func(t *testing.T, f *fixture) result {
				return f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
			}},
			{"apply of a merge", "the checkout", func(t *testing.T, f *fixture) result {
				f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
				f.srv.UpdatePullRequest(repoName, 2, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
				f.srv.SetCommitPulls(repoName, mergeSHA, 2)
				return f.run("push", pushEvent(t, "refs/heads/"+defaultRef, mergeSHA), nil)
			}},
			{"/kyku apply", defaultRef, func(t *testing.T, f *fixture) result {
				f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
				return f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku apply", 9001), map[string]string{"GITHUB_ACTOR": "hubot"})
			}},
			{"scheduled refresh", "the checkout", func(t *testing.T, f *fixture) result {
				return f.run("schedule", schedule(t), nil)
			}},
			{"command refresh on a pull request", defaultRef, func(t *testing.T, f *fixture) result {
				return f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), map[string]string{"INPUT_COMMAND": "refresh"})
			}},
			{"command plan on a push", "the checkout", func(t *testing.T, f *fixture) result {
				return f.run("push", pushEvent(t, "refs/heads/"+defaultRef, mergeSHA), map[string]string{"INPUT_COMMAND": "plan"})
			}},
		} {
			t.Run(cfg.name+"/"+tc.name, func(t *testing.T) {
				f := newFixture(t)
				delete(f.base, "INPUT_LOCAL-STATE") // the workflow does not accept local state
				f.srv.SetPermission(repoName, "hubot", "write")
				f.srv.SetPermission(repoName, "octocat", "write")
				f.setRef(defaultRef, cfg.yaml)
				f.setRef(shaA, cfg.yaml+"  worker:\n    type: Vm\n    properties: { image: debian-12 }\n")
				f.setCheckout(cfg.yaml)
				f.addPR(2, shaA)
				r := tc.run(t, f)
				f.refusedForLocalState(t, r, tc.where)
				if !strings.Contains(r.stdout, cfg.where) {
					t.Errorf("the refusal does not say where the state is set (%q):\n%s", cfg.where, r.stdout)
				}
			})
		}
	}
}

// TestLocalStateAllowed: with input local-state: allow, the same pull
// request is planned with its state in the checkout (the default,
// .kyku-state beside the configuration), as the workflow asked.
func TestLocalStateAllowed(t *testing.T) {
	for _, value := range []string{"allow", "ALLOW"} {
		t.Run(value, func(t *testing.T) {
			f := newFixture(t)
			f.base["INPUT_LOCAL-STATE"] = value
			f.setRef(defaultRef, noBackendYAML)
			f.setRef(shaA, noBackendYAML)
			f.addPR(2, shaA)
			r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
			wantCode(t, r, 0)
			if c := f.srv.Comments(repoName, 2); len(c) != 1 {
				t.Errorf("%d plan comments, want 1", len(c))
			}
			if _, err := os.Stat(filepath.Join(f.configDir(), ".kyku-state")); err != nil {
				t.Errorf("no local state in the checkout: %v", err)
			}
		})
	}
	t.Run("another value", func(t *testing.T) {
		f := newFixture(t)
		r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), map[string]string{"INPUT_LOCAL-STATE": "yes"})
		wantCode(t, r, 1)
		if !strings.Contains(r.stdout, `input local-state: "yes" is not one of refuse, allow`) {
			t.Errorf("log:\n%s", r.stdout)
		}
	})
}

// TestPullRequestCannotMoveStateToTheRunner (issue 42, attack): the
// default branch keeps state in S3; a pull request changes its own
// kyku.yaml to a local backend. Its plan is refused, naming the pull
// request's head: merged, the configuration would be refused on every run
// after it, so the plan refuses first. Whether local state is accepted is
// the workflow's input; a pull request that also sets it in the workflow
// file is refused on its merge, whose push runs the workflow as the pull
// request left it (its inputs are not the default branch's).
func TestPullRequestCannotMoveStateToTheRunner(t *testing.T) {
	t.Run("its kyku.yaml", func(t *testing.T) {
		f := newFixture(t)
		delete(f.base, "INPUT_LOCAL-STATE")
		f.setRef(defaultRef, s3BackendYAML)
		f.setRef(shaA, localBackendYAML)
		f.addPR(2, shaA)
		r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
		f.refusedForLocalState(t, r, shaA)
	})
	t.Run("its kyku.yaml and the workflow's input", func(t *testing.T) {
		f := newFixture(t)
		allowing := strings.Replace(workflowYAML, "with: { required-approvals: 2 }", "with: { required-approvals: 2, local-state: allow }", 1)
		if allowing == workflowYAML {
			t.Fatal("the workflow has no with: to add local-state to")
		}
		f.base["INPUT_LOCAL-STATE"] = "allow" // what the merged workflow says
		f.srv.SetPermission(repoName, "octocat", "write")
		f.setRef(pushBefore, s3BackendYAML)
		f.setRef(shaA, localBackendYAML)
		f.setCheckout(localBackendYAML) // the merge
		f.setWorkflow(allowing, shaA, mergeSHA)
		f.srv.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: author, HeadSHA: shaA, HeadRef: "local",
			Files: []string{configPath, workflowFile}})
		f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
		f.srv.UpdatePullRequest(repoName, 2, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
		f.srv.SetCommitPulls(repoName, mergeSHA, 2)
		r := f.run("push", pushEvent(t, "refs/heads/"+defaultRef, mergeSHA), nil)
		wantCode(t, r, 1)
		wantOutputs(t, r, map[string]string{"applied": "false"})
		if reply := f.lastReply(2); !strings.Contains(reply, "This merge changes `"+workflowFile+"`") {
			t.Errorf("the refusal does not say the merge brings its own workflow:\n%s", reply)
		}
		if _, err := os.Stat(filepath.Join(f.configDir(), ".kyku-state")); err == nil {
			t.Errorf("local state written although refused")
		}
		if c := f.cloudObjects(t); len(c) != 0 {
			t.Errorf("applied with the pull request's own input: %v", c)
		}
	})
}

// TestOldLayoutMovedOnARunnerSaysSo (issue 42): where local state is
// allowed and a persistent workspace still holds it in .kyku (an older
// kyku's place), the run moves it to .kyku-state and says so in one
// notice; the settings there stay.
func TestOldLayoutMovedOnARunnerSaysSo(t *testing.T) {
	f := newFixture(t)
	f.setCheckout(noBackendYAML)
	old := filepath.Join(f.configDir(), ".kyku")
	must(t, os.MkdirAll(filepath.Join(old, "policies"), 0o755))
	must(t, os.WriteFile(filepath.Join(old, "state.prod.journal"), nil, 0o644))
	must(t, os.WriteFile(filepath.Join(old, "policies", "ssh.rego"), []byte("package kyku\n"), 0o644))
	schedule := scheduleEvent(t)
	r := f.run("schedule", schedule, nil)
	wantCode(t, r, 0)
	want := "::notice::kyku: moved local state from " + old + " to " + filepath.Join(f.configDir(), ".kyku-state") + " (state.prod.journal)."
	if strings.Count(r.stdout, "::notice::kyku: moved local state") != 1 || !strings.Contains(r.stdout, want) {
		t.Errorf("the log does not give the one notice %q:\n%s", want, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(f.configDir(), ".kyku-state", "state.prod.journal")); err != nil {
		t.Errorf("not moved: %v", err)
	}
	if _, err := os.Stat(filepath.Join(old, "policies", "ssh.rego")); err != nil {
		t.Errorf("the policies did not stay: %v", err)
	}
}

// TestCommentWithoutACommandReadsNoConfiguration: the local-state check
// reads the configuration first on every event that may act; a comment
// with no /kyku command does not act, so the run reads no archive (which
// every comment of every repository would cost) and does nothing.
func TestCommentWithoutACommandReadsNoConfiguration(t *testing.T) {
	f := newFixture(t)
	delete(f.base, "INPUT_LOCAL-STATE")
	f.setRef(defaultRef, localBackendYAML)
	f.addPR(2, shaA)
	r := f.run("issue_comment", commentEvent(t, 2, "hubot", "LGTM, ship it", 9002), nil)
	wantCode(t, r, 0)
	if n := f.srv.CountRequests("GET", "/tarball/"+defaultRef); n != 0 {
		t.Errorf("read the default branch's archive %d times for a comment without a command", n)
	}
}
