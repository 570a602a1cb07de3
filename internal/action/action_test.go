package action_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/review"
)

const (
	shaA     = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"
	shaB     = "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2"
	shaC     = "c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3"
	mergeSHA = "d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4"
	author   = "Codertocat"
)

// prEvent is a real pull_request payload for PR number at head sha.
func prEvent(t *testing.T, file string, number int, sha string) map[string]any {
	return payload(t, file, func(ev map[string]any) {
		ev["number"] = number
		pr := obj(ev, "pull_request")
		pr["number"] = number
		obj(pr, "head")["sha"] = sha
	})
}

// commentEvent is a real issue_comment payload turned into a comment on
// pull request number by user.
func commentEvent(t *testing.T, number int, user, body string, commentID int64) map[string]any {
	return payload(t, "issue_comment.created.json", func(ev map[string]any) {
		issue := obj(ev, "issue")
		issue["number"] = number
		issue["pull_request"] = map[string]any{"url": "https://api.github.com/repos/" + repoName + "/pulls/" + itoa(number)}
		c := obj(ev, "comment")
		c["body"], c["id"] = body, commentID
		obj(c, "user")["login"] = user
		obj(ev, "sender")["login"] = user
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

func (f *fixture) addPR(number int, sha string) {
	f.srv.AddPullRequest(repoName, githubtest.PullRequest{Number: number, User: author, HeadSHA: sha, HeadRef: "change-" + itoa(number)})
}

func wantOutputs(t *testing.T, got result, want map[string]string) {
	t.Helper()
	sub := map[string]string{}
	for k := range want {
		sub[k] = got.outputs[k]
	}
	if d := cmp.Diff(want, sub); d != "" {
		t.Errorf("outputs (-want +got):\n%s", d)
	}
}

func wantCode(t *testing.T, got result, code int) {
	t.Helper()
	if got.code != code {
		t.Fatalf("exit code %d, want %d; log:\n%s\nsummary:\n%s", got.code, code, got.stdout, got.summary)
	}
}

// noLeak fails when the secret shows in the log outside its ::add-mask::.
func noLeak(t *testing.T, r result, files ...string) {
	t.Helper()
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.Contains(line, secret) && line != "::add-mask::"+secret {
			t.Errorf("the log shows the secret: %q", line)
		}
		if strings.Contains(line, githubtest.Token) && line != "::add-mask::"+githubtest.Token {
			t.Errorf("the log shows the token: %q", line)
		}
	}
	if strings.Contains(r.summary, secret) {
		t.Errorf("the job summary shows the secret")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		must(t, err)
		if strings.Contains(string(data), secret) {
			t.Errorf("%s holds the secret in clear", f)
		}
	}
}

// TestReviewLifecycle runs the Action through a pull request's life as the
// runner would: plan on open, the same comment edited on push, /kyku apply
// refused for a reader and done for a writer on an approved PR, a stale
// plan refused on merge, drift found and then gone.
func TestReviewLifecycle(t *testing.T) {
	f := newFixture(t)
	f.setRef(defaultRef, f.config("web"))
	f.setCheckout(f.config("web"))
	f.setRef(shaA, f.config("web", "worker"))
	f.setRef(shaB, f.config("web", "worker", "cache"))
	f.setRef(shaC, f.config("web", "queue"))
	f.addPR(2, shaA)
	f.srv.SetPermission(repoName, "hubot", "write")
	f.srv.SetPermission(repoName, "octocat", "write") // the reviewer
	f.srv.SetPermission(repoName, "mallory", "read")

	var commentURL string
	t.Run("pull request opened: one comment, plan.json, saved plan, outputs", func(t *testing.T) {
		r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
		wantCode(t, r, 0)
		comments := f.srv.Comments(repoName, 2)
		if len(comments) != 1 || !strings.Contains(comments[0].Body, "<!-- kyku:plan env=prod -->") {
			t.Fatalf("want one plan comment, got %d: %+v", len(comments), comments)
		}
		commentURL = r.outputs["comment-url"]
		if !strings.Contains(commentURL, "#issuecomment-") {
			t.Errorf("comment-url = %q", commentURL)
		}
		wantOutputs(t, r, map[string]string{"has-changes": "true", "creates": "2", "updates": "0", "replaces": "0", "destroys": "0", "applied": "false", "drift": "false"})
		planFile := r.outputs["plan-file"]
		var pj map[string]any
		data, err := os.ReadFile(planFile)
		must(t, err)
		must(t, json.Unmarshal(data, &pj))
		if filepath.Base(planFile) != "plan.json" || pj["environment"] != envName {
			t.Errorf("plan-file %s: environment %v", planFile, pj["environment"])
		}
		if _, err := f.backendStore().GetObject(t.Context(), review.SavedPlanKey("", envName, 2, shaA)); err != nil {
			t.Errorf("saved plan for #2 at %s: %v", shaA[:7], err)
		}
		if !strings.Contains(r.stdout, "::add-mask::"+githubtest.Token) {
			t.Errorf("the token is not masked; log:\n%s", r.stdout)
		}
		// The sensitive value is a literal of the config's file: no log mask
		// (the pull request chose it), shown masked everywhere (noLeak).
		if strings.Contains(r.stdout, "::add-mask::"+secret) {
			t.Errorf("a literal the config chose became a log mask; log:\n%s", r.stdout)
		}
		noLeak(t, r, planFile)
		f.golden("summary_pr_opened.md", r.summary)
	})

	t.Run("second push: the same comment is edited", func(t *testing.T) {
		f.srv.UpdatePullRequest(repoName, 2, func(pr *githubtest.PullRequest) { pr.HeadSHA = shaB })
		r := f.run("pull_request", prEvent(t, "pull_request.synchronize.json", 2, shaB), nil)
		wantCode(t, r, 0)
		comments := f.srv.Comments(repoName, 2)
		if len(comments) != 1 {
			t.Fatalf("want still one comment, got %d", len(comments))
		}
		if !strings.Contains(comments[0].Body, shaB[:7]) || r.outputs["comment-url"] != commentURL {
			t.Errorf("the comment was not edited in place for %s (url %s, was %s)", shaB[:7], r.outputs["comment-url"], commentURL)
		}
		wantOutputs(t, r, map[string]string{"creates": "3", "has-changes": "true"})
	})

	t.Run("another PR is planned against the same state", func(t *testing.T) {
		f.addPR(3, shaC)
		r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 3, shaC), nil)
		wantCode(t, r, 0)
	})

	t.Run("/kyku apply by a read-only user is refused", func(t *testing.T) {
		before := f.serial()
		r := f.run("issue_comment", commentEvent(t, 2, "mallory", "/kyku apply", 7001), map[string]string{"GITHUB_ACTOR": "mallory"})
		wantCode(t, r, 0)
		f.nothingApplied(t, r, before)
		if !strings.Contains(r.summary, "`mallory` has `read` permission") {
			t.Errorf("the summary does not say why:\n%s", r.summary)
		}
		f.golden("summary_apply_refused.md", r.summary)
	})

	t.Run("/kyku apply by a writer on an approved PR applies it", func(t *testing.T) {
		f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaB})
		before := f.serial()
		r := f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku apply -e prod", 7002), map[string]string{"GITHUB_ACTOR": "hubot"})
		wantCode(t, r, 0)
		wantOutputs(t, r, map[string]string{"applied": "true"})
		// The first apply creates the state (serial 1), then applies (+1).
		if got := f.serial(); got != max(before, 1)+1 {
			t.Errorf("state serial %d → %d, want +1", before, got)
		}
		if n := len(f.cloudObjects(t)); n != 3 {
			t.Errorf("the cloud has %d objects, want 3", n)
		}
		noLeak(t, r)
		f.golden("summary_applied.md", r.summary)
	})

	t.Run("merge of a PR whose plan went stale is refused and fails the job", func(t *testing.T) {
		f.srv.AddReview(repoName, 3, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaC})
		f.srv.UpdatePullRequest(repoName, 3, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
		f.srv.SetCommitPulls(repoName, mergeSHA, 3)
		f.setCheckout(f.config("web", "queue"))
		f.setRef(pushBefore, f.config("web")) // the default branch before the merge
		before := f.serial()
		r := f.run("push", pushEvent(t, "refs/heads/"+defaultRef, mergeSHA), nil)
		wantCode(t, r, 1)
		if !strings.Contains(r.stdout, "::error::the merged pull request's plan was not applied") {
			t.Errorf("no error annotation; log:\n%s", r.stdout)
		}
		wantOutputs(t, r, map[string]string{"applied": "false"})
		if got := f.serial(); got != before {
			t.Errorf("state serial %d → %d: a stale plan was applied", before, got)
		}
		f.golden("summary_merge_stale.md", r.summary)
	})

	t.Run("schedule with drift opens one issue, closed once the drift is fixed", func(t *testing.T) {
		f.setCheckout(f.config("web", "worker", "cache"))
		schedule := scheduleEvent(t)
		clean := f.run("schedule", schedule, nil)
		wantCode(t, clean, 0)
		wantOutputs(t, clean, map[string]string{"drift": "false"})

		file, orig := f.editCloud(t, "worker", `"size": "small"`, `"size": "large"`)
		r := f.run("schedule", schedule, nil)
		wantCode(t, r, 0)
		wantOutputs(t, r, map[string]string{"drift": "true"})
		issues := f.srv.Issues(repoName)
		if len(issues) != 1 || issues[0].State != "open" || !strings.Contains(issues[0].Body, "worker") {
			t.Fatalf("want one open drift issue naming worker, got %+v", issues)
		}
		f.golden("summary_drift.md", r.summary)
		again := f.run("schedule", schedule, map[string]string{"INPUT_FAIL-ON-DRIFT": "true"})
		wantCode(t, again, 1)
		if n := len(f.srv.Issues(repoName)); n != 1 {
			t.Errorf("a second drifted run made %d issues, want still 1", n)
		}

		must(t, os.WriteFile(file, orig, 0o644))
		fixed := f.run("schedule", schedule, nil)
		wantCode(t, fixed, 0)
		wantOutputs(t, fixed, map[string]string{"drift": "false"})
		issues = f.srv.Issues(repoName)
		if len(issues) != 1 || issues[0].State != "closed" {
			t.Fatalf("want the drift issue closed, got %+v", issues)
		}
		f.golden("summary_drift_fixed.md", fixed.summary)
	})
}

func pushEvent(t *testing.T, ref, after string) map[string]any {
	return payload(t, "push.json", func(ev map[string]any) {
		ev["ref"], ev["after"], ev["deleted"], ev["created"] = ref, after, false, false
	})
}

// cloudObjects lists the sim's object files.
func (f *fixture) cloudObjects(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(f.simDir, "*", "*.json"))
	must(t, err)
	return files
}

// editCloud changes the sim object named name (drift, as someone editing in
// the console) and returns its file and original content.
func (f *fixture) editCloud(t *testing.T, name, old, repl string) (string, []byte) {
	t.Helper()
	for _, file := range f.cloudObjects(t) {
		data, err := os.ReadFile(file)
		must(t, err)
		var o struct {
			Name string `json:"name"`
		}
		must(t, json.Unmarshal(data, &o))
		if o.Name != name {
			continue
		}
		if !strings.Contains(string(data), old) {
			t.Fatalf("%s does not contain %s:\n%s", file, old, data)
		}
		must(t, os.WriteFile(file, []byte(strings.Replace(string(data), old, repl, 1)), 0o644))
		return file, data
	}
	t.Fatalf("no cloud object named %s", name)
	return "", nil
}
