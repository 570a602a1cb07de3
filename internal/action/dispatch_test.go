package action_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/review"
)

// dispatchEvent is a real workflow_dispatch payload sent by sender (a
// "Bot" when its login ends in [bot]).
func dispatchEvent(t *testing.T, sender string) map[string]any {
	return payload(t, "workflow_dispatch.json", func(ev map[string]any) {
		s := obj(ev, "sender")
		s["login"] = sender
		if strings.HasSuffix(sender, "[bot]") {
			s["type"] = "Bot"
		} else {
			s["type"] = "User"
		}
	})
}

// dispatchInputs are the Action's inputs as the bot's dispatched workflow
// passes them.
func dispatchInputs(command, pr, requestedBy string) map[string]string {
	return map[string]string{
		"INPUT_COMMAND": command, "INPUT_PULL-REQUEST": pr, "INPUT_REQUESTED-BY": requestedBy,
		"INPUT_DISPATCHER": "kyku[bot]",
	}
}

// TestDispatchedCommandsAreThePullRequestsCommands (execution: actions):
// the bot's dispatch of a plan for a pull request plans it as its push
// would — the head's configuration through the API, the backend from the
// default branch, the sticky comment — whatever the workflow checked out;
// a dispatched apply is the /kyku apply of the one who asked, judged by
// the same rules (apply-permission, approvals, the reviewed plan). Who
// asked is believed only from the account input dispatcher names: another
// bot's dispatch (a workflow's GITHUB_TOKEN) is refused, and a person's
// dispatch is their own command, whatever requested-by says.
func TestDispatchedCommandsAreThePullRequestsCommands(t *testing.T) {
	f := newFixture(t)
	f.setRef(defaultRef, f.config("web"))
	// The workflow checked out the pull request: nothing there is trusted.
	f.setCheckout("provider: sim\nbackend: { type: local, path: stolen }\nresources: {}\n")
	f.setRef(shaA, f.config("web", "worker"))
	f.addPR(2, shaA)
	f.srv.SetPermission(repoName, "hubot", "write")
	f.srv.SetPermission(repoName, "octocat", "write")
	f.srv.SetPermission(repoName, "mallory", "read")

	t.Run("the bot's plan plans the pull request", func(t *testing.T) {
		r := f.run("workflow_dispatch", dispatchEvent(t, "kyku[bot]"), dispatchInputs("plan", "2", ""))
		wantCode(t, r, 0)
		comments := f.srv.Comments(repoName, 2)
		if len(comments) != 1 || !strings.Contains(comments[0].Body, "<!-- kyku:plan env=prod -->") || !strings.Contains(comments[0].Body, shaA[:7]) {
			t.Fatalf("want the sticky plan comment for %s, got %+v", shaA[:7], comments)
		}
		if _, err := f.backendStore().GetObject(t.Context(), review.SavedPlanKey("", envName, 2, shaA)); err != nil {
			t.Errorf("no saved plan in the default branch's backend: %v", err)
		}
		wantOutputs(t, r, map[string]string{"creates": "2"})
	})

	t.Run("another bot's dispatch is refused", func(t *testing.T) {
		r := f.run("workflow_dispatch", dispatchEvent(t, "github-actions[bot]"), dispatchInputs("apply", "2", "hubot"))
		wantCode(t, r, 1)
		if !strings.Contains(r.stdout, "which input dispatcher does not name") {
			t.Errorf("log:\n%s", r.stdout)
		}
	})

	t.Run("a reader named by the bot may not apply", func(t *testing.T) {
		f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
		r := f.run("workflow_dispatch", dispatchEvent(t, "kyku[bot]"), dispatchInputs("apply", "2", "mallory"))
		wantCode(t, r, 0)
		wantOutputs(t, r, map[string]string{"applied": "false"})
		if !strings.Contains(r.summary, "`mallory` has `read` permission") {
			t.Errorf("summary:\n%s", r.summary)
		}
	})

	t.Run("a person's dispatch is their own, whatever requested-by says", func(t *testing.T) {
		r := f.run("workflow_dispatch", dispatchEvent(t, "mallory"), dispatchInputs("apply", "2", "hubot"))
		wantCode(t, r, 0)
		wantOutputs(t, r, map[string]string{"applied": "false"})
		if !strings.Contains(r.summary, "`mallory` has `read` permission") || !strings.Contains(r.stdout, "input requested-by hubot ignored") {
			t.Errorf("log:\n%s\nsummary:\n%s", r.stdout, r.summary)
		}
		if n := len(f.cloudObjects(t)); n != 0 {
			t.Errorf("the cloud has %d objects, want none", n)
		}
	})

	t.Run("a writer named by the bot applies the approved plan", func(t *testing.T) {
		r := f.run("workflow_dispatch", dispatchEvent(t, "kyku[bot]"), dispatchInputs("apply", "2", "hubot"))
		wantCode(t, r, 0)
		wantOutputs(t, r, map[string]string{"applied": "true"})
		if n := len(f.cloudObjects(t)); n != 2 {
			t.Errorf("the cloud has %d objects, want 2", n)
		}
	})

	t.Run("an apply without requested-by is refused", func(t *testing.T) {
		r := f.run("workflow_dispatch", dispatchEvent(t, "kyku[bot]"), dispatchInputs("apply", "2", ""))
		wantCode(t, r, 1)
		if !strings.Contains(r.stdout, "without requested-by") {
			t.Errorf("log:\n%s", r.stdout)
		}
	})
}

// TestDispatchedApplyIsOfTheHeadTheBotPinned: the bot dispatches a
// /kyku apply with head-sha, the head the comment was posted on; a push
// before the run judges it (to a head planned and approved: every other
// rule passes) refuses the apply, and nothing is applied. On the pinned
// head it applies.
func TestDispatchedApplyIsOfTheHeadTheBotPinned(t *testing.T) {
	f := approvedHead(t)

	in := dispatchInputs("apply", "2", "hubot")
	in["INPUT_HEAD-SHA"] = shaA
	before := f.serial()
	r := f.run("workflow_dispatch", dispatchEvent(t, "kyku[bot]"), in)
	wantHeadMovedRefusal(t, f, r, before)

	in["INPUT_HEAD-SHA"] = "main"
	r = f.run("workflow_dispatch", dispatchEvent(t, "kyku[bot]"), in)
	wantCode(t, r, 1)
	if !strings.Contains(r.stdout, `input head-sha: "main" is not a commit SHA`) {
		t.Errorf("a head-sha that is no SHA is not named; log:\n%s", r.stdout)
	}

	in["INPUT_HEAD-SHA"] = strings.ToUpper(shaB)
	r = f.run("workflow_dispatch", dispatchEvent(t, "kyku[bot]"), in)
	wantCode(t, r, 0)
	wantOutputs(t, r, map[string]string{"applied": "true"})
}

// scheduleEvent is a schedule event (the cron that runs the drift
// check) of the fixture's repository.
func scheduleEvent(t *testing.T) map[string]any {
	t.Helper()
	return payload(t, "workflow_dispatch.json", func(ev map[string]any) {
		delete(ev, "inputs")
		ev["schedule"] = "0 6 * * *"
		obj(ev, "repository")["full_name"] = repoName
	})
}
