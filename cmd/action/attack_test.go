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

	"github.com/kyku/action/internal/github/githubtest"
)

// The Action's attack tests run the built binary the way a runner does,
// one process per event, against the fake GitHub API; state is local in
// the checkout, the cloud is the sim's directory.

const (
	author   = "Codertocat" // the payloads' pull request author
	mergeSHA = "d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4"
	head8    = "e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8"
	twoVms   = config + "  worker:\n    type: Vm\n    properties: { image: debian-12, size: large }\n"
)

// runner is one test's runner directory and fake API.
type runner struct {
	t   *testing.T
	srv *githubtest.Server
	dir string
	n   int
}

// ghRun is what one run of the binary left.
type ghRun struct {
	code     int
	log      string
	requests int // API requests it made
}

func newRunner(t *testing.T, srv *githubtest.Server) *runner {
	return &runner{t: t, srv: srv, dir: t.TempDir()}
}

// checkout writes what actions/checkout put in the workspace.
func (r *runner) checkout(yaml string) {
	r.t.Helper()
	dir := filepath.Join(r.dir, "checkout")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kyku.yaml"), []byte(yaml), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// event builds a payload from the real pull_request.opened one (number and
// head set), changed by edit.
func (r *runner) event(number int, sha string, edit func(ev map[string]any) map[string]any) map[string]any {
	r.t.Helper()
	data, err := os.ReadFile(payload(r.t, r.t.TempDir()))
	if err != nil {
		r.t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		r.t.Fatal(err)
	}
	pr := ev["pull_request"].(map[string]any)
	ev["number"], pr["number"] = number, number
	pr["head"].(map[string]any)["sha"] = sha
	if edit != nil {
		ev = edit(ev)
	}
	return ev
}

// comment is an issue_comment.created payload on pull request number,
// built from the pull request payload's repository.
func (r *runner) comment(number int, user, body string, id int64) map[string]any {
	return r.event(number, head, func(ev map[string]any) map[string]any {
		return map[string]any{
			"action":     "created",
			"repository": ev["repository"],
			"sender":     map[string]any{"login": user, "type": "User"},
			"issue": map[string]any{"number": number, "pull_request": map[string]any{
				"url": fmt.Sprintf("https://api.github.com/repos/%s/pulls/%d", repoName, number)}},
			"comment": map[string]any{"id": id, "body": body, "user": map[string]any{"login": user, "type": "User"}},
		}
	})
}

// push is the push of sha to the default branch.
func (r *runner) push(sha string) map[string]any {
	return r.event(7, head, func(ev map[string]any) map[string]any {
		return map[string]any{"ref": "refs/heads/master", "before": pushBefore, "after": sha, "deleted": false, "repository": ev["repository"], "sender": ev["sender"]}
	})
}

// run runs the binary for one event with the runner's environment.
func (r *runner) run(eventName string, ev map[string]any, env ...string) ghRun {
	r.t.Helper()
	r.n++
	data, err := json.Marshal(ev)
	if err != nil {
		r.t.Fatal(err)
	}
	evPath := filepath.Join(r.dir, fmt.Sprintf("event-%d.json", r.n))
	out := filepath.Join(r.dir, fmt.Sprintf("output-%d", r.n))
	if err := os.WriteFile(out, nil, 0o644); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(evPath, data, 0o644); err != nil {
		r.t.Fatal(err)
	}
	before := len(r.srv.Requests())
	cmd := exec.Command(binary)
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + r.dir,
		"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=" + eventName, "GITHUB_EVENT_PATH=" + evPath,
		"GITHUB_REPOSITORY=" + repoName, "GITHUB_API_URL=" + r.srv.APIURL(), "GITHUB_SERVER_URL=https://github.com",
		"GITHUB_RUN_ID=9", "GITHUB_WORKSPACE=" + filepath.Join(r.dir, "checkout"), "RUNNER_TEMP=" + r.dir,
		"GITHUB_OUTPUT=" + out, "GITHUB_STEP_SUMMARY=" + filepath.Join(r.dir, "summary.md"),
		"KYKU_SIM_DIR=" + filepath.Join(r.dir, "sim"),
		"INPUT_GITHUB-TOKEN=" + githubtest.Token, "INPUT_CONFIG=kyku.yaml", "INPUT_ENVIRONMENT=dev", localStateOptIn,
		"GITHUB_WORKFLOW_REF=" + repoName + "/" + workflowFile + "@refs/heads/master",
	}, env...)
	log, err := cmd.Output()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		r.t.Fatal(err)
	}
	return ghRun{code: code, log: string(log), requests: len(r.srv.Requests()) - before}
}

// cloud lists the sim's objects.
func (r *runner) cloud() []string {
	files, _ := filepath.Glob(filepath.Join(r.dir, "sim", "*", "*.json"))
	return files
}

// lastReply is the newest comment on number written with the token.
func (r *runner) lastReply(number int) string {
	r.t.Helper()
	var last string
	for _, c := range r.srv.Comments(repoName, number) {
		if c.User == githubtest.TokenUser {
			last = c.Body
		}
	}
	return last
}

func wantIn(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q:\n%s", what, sub, s)
		}
	}
}

// TestBinaryApprovalByReadOnlyAccountDoesNotCount: the author (a writer)
// gets an approval from an account with read access and applies alone:
// refused. Then a writer approves the head and the same /kyku apply
// applies; a merge of another approved pull request applies too (the
// happy path, end to end).
func TestBinaryApprovalByReadOnlyAccountDoesNotCount(t *testing.T) {
	srv := newServer(t, config)
	srv.SetPermission(repoName, author, "write")
	srv.SetPermission(repoName, "reader-alt", "read")
	srv.SetPermission(repoName, "octocat", "write")
	r := newRunner(t, srv)
	r.checkout(config)
	if got := r.run("pull_request", r.event(7, head, nil)); got.code != 0 {
		t.Fatalf("plan: exit %d\n%s", got.code, got.log)
	}
	srv.AddReview(repoName, 7, githubtest.Review{User: "reader-alt", State: "APPROVED", CommitID: head})
	got := r.run("issue_comment", r.comment(7, author, "/kyku apply", 71), "GITHUB_ACTOR="+author)
	if got.code != 0 {
		t.Errorf("a refused /kyku apply: exit %d, want 0\n%s", got.code, got.log)
	}
	wantIn(t, "reply", r.lastReply(7), "refused", "`reader-alt` (has `read` permission; approvals need `write`)", "Counted: none.")
	if c := r.cloud(); len(c) != 0 {
		t.Fatalf("applied without a counted approval: %v", c)
	}

	srv.AddReview(repoName, 7, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: head})
	got = r.run("issue_comment", r.comment(7, author, "/kyku apply", 72), "GITHUB_ACTOR="+author)
	if got.code != 0 || len(r.cloud()) != 1 {
		t.Fatalf("writer-approved apply: exit %d, cloud %v\n%s", got.code, r.cloud(), got.log)
	}
	wantIn(t, "result", r.lastReply(7), "succeeded")

	// Pull request 8 adds a Vm, is approved at its head and merged.
	srv.SetFile(repoName, head8, "kyku.yaml", []byte(twoVms))
	srv.AddPullRequest(repoName, githubtest.PullRequest{Number: 8, User: author, HeadSHA: head8})
	if got := r.run("pull_request", r.event(8, head8, nil)); got.code != 0 {
		t.Fatalf("plan #8: exit %d\n%s", got.code, got.log)
	}
	srv.AddReview(repoName, 8, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: head8})
	srv.UpdatePullRequest(repoName, 8, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
	srv.SetCommitPulls(repoName, mergeSHA, 8)
	r.checkout(twoVms)
	if got := r.run("push", r.push(mergeSHA)); got.code != 0 || len(r.cloud()) != 2 {
		t.Fatalf("merge: exit %d, cloud %v\n%s", got.code, r.cloud(), got.log)
	}
}

// TestBinaryPlanCommentTakeover: a stranger's comment carrying Kyku's
// marker is not edited; Kyku writes its own.
func TestBinaryPlanCommentTakeover(t *testing.T) {
	srv := newServer(t, config)
	fake := "<!-- kyku:plan env=dev -->\nNo changes, merge away.\n"
	id := srv.AddComment(repoName, 7, "mallory", fake)
	r := newRunner(t, srv)
	r.checkout(config)
	if got := r.run("pull_request", r.event(7, head, nil)); got.code != 0 {
		t.Fatalf("exit %d\n%s", got.code, got.log)
	}
	comments := srv.Comments(repoName, 7)
	if len(comments) != 2 || comments[0].ID != id || comments[0].Body != fake || comments[1].User != githubtest.TokenUser {
		t.Errorf("comments %+v, want the stranger's untouched and Kyku's own", comments)
	}
}

// TestBinarySavedPlanSwapped: another pull request's saved plan is copied
// over the reviewed one (a same-repository pull request's workflow can
// write the backend). The apply re-plans the approved head and refuses.
func TestBinarySavedPlanSwapped(t *testing.T) {
	srv := newServer(t, config)
	srv.SetFile(repoName, head8, "kyku.yaml", []byte(twoVms))
	srv.AddPullRequest(repoName, githubtest.PullRequest{Number: 8, User: author, HeadSHA: head8})
	srv.SetPermission(repoName, "octocat", "write")
	srv.SetPermission(repoName, "hubot", "write")
	r := newRunner(t, srv)
	r.checkout(config)
	for _, pr := range []struct {
		n   int
		sha string
	}{{7, head}, {8, head8}} {
		if got := r.run("pull_request", r.event(pr.n, pr.sha, nil)); got.code != 0 {
			t.Fatalf("plan #%d: exit %d\n%s", pr.n, got.code, got.log)
		}
	}
	plans := filepath.Join(r.dir, "checkout", ".kyku-state", "plans", "dev")
	other, err := os.ReadFile(filepath.Join(plans, "pr-8-"+head8+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plans, "pr-7-"+head+".json"), other, 0o644); err != nil {
		t.Fatal(err)
	}
	srv.AddReview(repoName, 7, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: head})
	got := r.run("issue_comment", r.comment(7, "hubot", "/kyku apply", 73), "GITHUB_ACTOR=hubot")
	if got.code != 0 {
		t.Errorf("exit %d\n%s", got.code, got.log)
	}
	wantIn(t, "reply", r.lastReply(7), "refused", "was not made from the configuration at that commit", "What Kyku would apply now, for review:")
	if c := r.cloud(); len(c) != 0 {
		t.Errorf("the swapped plan was applied: %v", c)
	}
}

// TestBinaryEnvironmentInputIsChecked: the environment names state files
// and backend keys, so "../x" is refused before anything runs.
func TestBinaryEnvironmentInputIsChecked(t *testing.T) {
	srv := newServer(t, config)
	r := newRunner(t, srv)
	r.checkout(config)
	for _, env := range []string{"../../outside", "prod/../../x", "a b", "-e"} {
		got := r.run("pull_request", r.event(7, head, nil), "INPUT_ENVIRONMENT="+env)
		if got.code != 1 || !strings.Contains(got.log, "::error::input environment: ") || got.requests != 0 {
			t.Errorf("environment %q: exit %d, %d API requests, log:\n%s", env, got.code, got.requests, got.log)
		}
	}
	if _, err := os.Stat(filepath.Join(r.dir, "outside")); err == nil {
		t.Error("state written outside the checkout")
	}
}

// TestBinaryForkMessageIsTrue: the message for a fork pull request used to
// say a maintainer could /kyku plan it, which was refused. It now says
// what happens.
func TestBinaryForkMessageIsTrue(t *testing.T) {
	srv := newServer(t, config)
	r := newRunner(t, srv)
	r.checkout(config)
	got := r.run("pull_request", r.event(7, head, func(ev map[string]any) map[string]any {
		ev["pull_request"].(map[string]any)["head"].(map[string]any)["repo"].(map[string]any)["full_name"] = "mallory/Hello-World"
		return ev
	}))
	if got.code != 0 || got.requests != 0 {
		t.Fatalf("exit %d, %d API requests\n%s", got.code, got.requests, got.log)
	}
	wantIn(t, "log", got.log, "does not plan pull requests from forks", "push its branch to this repository")
	if strings.Contains(got.log, "can comment `/kyku plan`") {
		t.Errorf("the log still promises a /kyku plan:\n%s", got.log)
	}
}

// TestBinaryPullRequestBackendNeverApplies: the default branch has no Kyku
// configuration yet; the pull request adding one is planned with its own
// backend, but a /kyku apply — even from a workflow that checked out the
// pull request's head — is refused: a pull request's backend is for
// planning only. The merge applies.
func TestBinaryPullRequestBackendNeverApplies(t *testing.T) {
	srv := githubtest.NewServer(t)
	srv.AddRepo(repoName, "master")
	srv.SetFile(repoName, "master", "README.md", []byte("no config yet\n"))
	srv.SetFile(repoName, head, "kyku.yaml", []byte(config))
	srv.AddPullRequest(repoName, githubtest.PullRequest{Number: 7, User: author, HeadSHA: head})
	srv.SetPermission(repoName, "octocat", "write")
	srv.SetPermission(repoName, "hubot", "write")
	sameWorkflow(srv)
	r := newRunner(t, srv)
	r.checkout(config) // the workflow checks out the pull request's head
	got := r.run("pull_request", r.event(7, head, nil))
	if got.code != 0 || !strings.Contains(got.log, "planning only") {
		t.Fatalf("plan: exit %d\n%s", got.code, got.log)
	}
	srv.AddReview(repoName, 7, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: head})
	got = r.run("issue_comment", r.comment(7, "hubot", "/kyku apply", 74), "GITHUB_ACTOR=hubot")
	if got.code != 0 {
		t.Errorf("exit %d\n%s", got.code, got.log)
	}
	wantIn(t, "reply", r.lastReply(7), "refused", "no Kyku configuration yet", "planning only, never to apply")
	if c := r.cloud(); len(c) != 0 {
		t.Fatalf("applied with the pull request's backend: %v", c)
	}

	// Merged, the configuration is the default branch's: the merge applies.
	srv.SetFile(repoName, "master", "kyku.yaml", []byte(config))
	srv.UpdatePullRequest(repoName, 7, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
	srv.SetCommitPulls(repoName, mergeSHA, 7)
	if got := r.run("push", r.push(mergeSHA)); got.code != 0 || len(r.cloud()) != 1 {
		t.Errorf("merge: exit %d, cloud %v\n%s", got.code, r.cloud(), got.log)
	}
}
