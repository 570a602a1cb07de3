package bot_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/github/githubtest"
)

func TestExecutionActionsDispatchesInsteadOfPlanning(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(`
execution: actions
workflow: kyku.yml
projects:
  - name: infra
    config: kyku.yaml
    environments: [staging, prod]
`))
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	want := []githubtest.Dispatch{
		{Workflow: "kyku.yml", Ref: "refs/heads/" + defaultBranch, Inputs: map[string]any{
			"command": "plan", "config": "kyku.yaml", "environment": "staging", "project": "infra", "pr": "2", "sha": headA, "requested-by": ""}},
		{Workflow: "kyku.yml", Ref: "refs/heads/" + defaultBranch, Inputs: map[string]any{
			"command": "plan", "config": "kyku.yaml", "environment": "prod", "project": "infra", "pr": "2", "sha": headA, "requested-by": ""}},
	}
	got := h.gh.Dispatches(repoName)
	ids := map[string]bool{}
	for i := range got {
		id, _ := got[i].Inputs["dispatch-id"].(string)
		if !strings.HasPrefix(id, "kyku-") || len(id) != len("kyku-")+32 || ids[id] {
			t.Errorf("dispatch %d has dispatch-id %q, want a fresh random one", i, id)
		}
		ids[id] = true
		delete(got[i].Inputs, "dispatch-id")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dispatches (-want +got):\n%s", diff)
	}
	// One check run per dispatched target, waiting for its run, named as
	// the in-process plan's (so required checks work either way).
	runs := h.gh.CheckRuns(repoName)
	if len(runs) != 2 || runs[0].Name != "kyku plan (infra/staging)" || runs[1].Name != "kyku plan (infra/prod)" {
		t.Fatalf("check runs %+v, want one per dispatched target", runs)
	}
	for _, r := range runs {
		if r.Status != "queued" || r.HeadSHA != headA || !ids[r.ExternalID] {
			t.Errorf("check run %+v: want queued on the head, naming its dispatch", r)
		}
	}
	if c := h.gh.Comments(repoName, 2); len(c) != 0 {
		t.Errorf("comments %+v: the bot planned in-process", c)
	}
	if h.gh.CountRequests("GET", "/tarball/"+headA) != 0 {
		t.Error("the bot downloaded the source although the job runs in Actions")
	}
	if m := h.metrics(); m[`kyku_bot_jobs_total{kind="pull_request",outcome="dispatched"}`] != 1 {
		t.Errorf("dispatch not counted: %v", m)
	}
}

// A pull request that edits .kyku/config.yaml does not get its own rules:
// the settings come from the default branch only.
func TestSettingsReadFromDefaultBranchNotThePR(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(`
projects:
  - name: app
    config: kyku.yaml
`))
	h.gh.SetFile(repoName, headA, ".kyku/config.yaml", []byte(`
execution: actions
require-approval: false
apply-permission: read
projects:
  - name: app
    config: kyku.yaml
`))
	h.gh.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: "author", HeadSHA: headA,
		Files: []string{".kyku/config.yaml", "kyku.yaml"}})
	h.gh.SetPermission(repoName, "reader", "read")
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	if d := h.gh.Dispatches(repoName); len(d) != 0 {
		t.Errorf("the PR's execution: actions was obeyed: %+v", d)
	}
	runs := h.gh.CheckRuns(repoName)
	if len(runs) != 1 || runs[0].Name != "kyku plan (app)" {
		t.Errorf("check runs %+v, want kyku plan (app) from the default branch's settings", runs)
	}
	// The PR's apply-permission: read is not obeyed either.
	h.deliver("issue_comment", commentOn(t, 2, "reader", "User", "/kyku apply", 801))
	h.settle()
	if m := h.metrics(); m[`kyku_bot_jobs_total{kind="apply",outcome="refused"}`] != 1 {
		t.Errorf("a reader's apply was not refused under the default branch's rules")
	}
	for _, r := range h.gh.Requests() {
		if strings.HasSuffix(r.Path, "/contents/.kyku/config.yaml") {
			if q, _ := url.ParseQuery(r.RawQuery); q.Get("ref") != "" {
				t.Errorf("settings read at ref %q, want the default branch", q.Get("ref"))
			}
		}
	}
}

func TestInvalidSettingsFailACheckRun(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte("apply: always\nprojects: []\n"))
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	runs := h.gh.CheckRuns(repoName)
	if len(runs) != 1 || runs[0].Name != "kyku settings" || runs[0].Conclusion != "failure" {
		t.Errorf("check runs = %+v, want one failed kyku settings run", runs)
	}
	h.wantConversation(2, "invalid-settings") // both errors, with positions
}

func TestConfigErrorsFailThePlanCheckRun(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.gh.SetFile(repoName, headA, "kyku.yaml", []byte("resources:\n  web:\n    type: Nope\n"))
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	runs := h.gh.CheckRuns(repoName)
	if len(runs) != 1 || runs[0].Conclusion != "failure" {
		t.Errorf("check runs = %+v, want a failure", runs)
	}
	h.wantConversation(2, "config-errors") // citing kyku.yaml:3
}

func TestUntouchedProjectIsNotPlanned(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.gh.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: "author", HeadSHA: headA, Files: []string{"README.md"}})
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	if runs := h.gh.CheckRuns(repoName); len(runs) != 0 {
		t.Errorf("a PR touching only README.md was planned: %+v", runs)
	}
}
