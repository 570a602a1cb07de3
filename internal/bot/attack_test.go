package bot_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/review"
)

// configV3 is a third, bigger project.
const configV3 = configV2 + `  cache:
    type: Vm
    properties: { image: debian-12 }
`

// lastBotComment is the newest comment the App wrote on number.
func (h *harness) lastBotComment(number int) string {
	h.t.Helper()
	c := h.botComments(number)
	if len(c) == 0 {
		h.t.Fatalf("no comment by the App on #%d", number)
	}
	return c[len(c)-1].Body
}

// TestApprovalBySecondAccountWithoutAccessDoesNotCount: the author of a
// pull request, a writer, approves it from a second account that has no
// access and applies alone. Refused, with who did not count and why.
func TestApprovalBySecondAccountWithoutAccessDoesNotCount(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.gh.SetPermission(repoName, "author", "write")
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	h.gh.AddReview(repoName, 2, githubtest.Review{User: "author-alt", State: "APPROVED", CommitID: headA})
	h.gh.AddReview(repoName, 2, githubtest.Review{User: "ci[bot]", State: "APPROVED", CommitID: headA})

	h.deliver("issue_comment", commentOn(t, 2, "author", "User", "/kyku apply", 901))
	h.settle()
	// Refused: 1 approval needed, none counted; author-alt has no
	// permission, ci[bot] is a bot.
	h.wantConversation(2, "approval-by-a-second-account")
	if cloud := h.cloudObjects(); len(cloud) != 0 {
		t.Errorf("applied: the cloud holds %v", cloud)
	}

	// A writer's approval at the head counts: the same apply goes through.
	h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})
	h.deliver("issue_comment", commentOn(t, 2, "author", "User", "/kyku apply", 902))
	h.settle()
	if cloud := h.cloudObjects(); len(cloud) != 2 {
		t.Errorf("after a writer's approval the cloud holds %v, want the 2 Vms", cloud)
	}
}

// TestPlanCommentTakeoverByStranger: a stranger posts a comment carrying
// Kyku's plan marker before and after Kyku plans. Kyku never edits or folds
// it, and keeps exactly one plan comment of its own.
func TestPlanCommentTakeoverByStranger(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	marker := render.PlanMarker("", "")
	fake := marker + "\n### Kyku plan for `default`\n\nNo changes. Nothing to review here.\n"
	h.pr(2, headA)
	early := h.gh.AddComment(repoName, 2, "mallory", fake)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	late := h.gh.AddComment(repoName, 2, "mallory", fake)
	h.gh.UpdatePullRequest(repoName, 2, func(p *githubtestPR) { p.HeadSHA = headB })
	h.deliver("pull_request", fixtureAction(t, prOpened(t, 2, headB), "synchronize"))
	h.settle()

	for _, c := range h.gh.Comments(repoName, 2) {
		if (c.ID == early || c.ID == late) && c.Body != fake {
			t.Errorf("the stranger's comment %d was changed to:\n%s", c.ID, c.Body)
		}
	}
	if own := h.botComments(2); len(own) != 1 {
		t.Errorf("the App's comments %+v, want its one plan comment", own)
	}
	h.wantConversation(2, "plan-comment-takeover") // the plan of headB, worker in it
}

// TestSavedPlanSwappedAfterReview: another pull request's saved plan is
// written over the reviewed one (anyone who can write to the backend can).
// The apply plans the approved commit again, refuses and shows that plan.
func TestSavedPlanSwappedAfterReview(t *testing.T) {
	ctx := t.Context()
	h := newHarness(t, harnessOpts{})
	h.gh.SetFile(repoName, headB, "kyku.yaml", []byte(configV3))
	h.gh.SetPermission(repoName, "writer", "write")
	h.pr(2, headA)
	h.pr(3, headB)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.deliver("pull_request", prOpened(t, 3, headB))
	h.settle()
	h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})

	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(configV1)}})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := h.openRepo(ctx, cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	other, err := ws.Backend.GetObject(ctx, review.SavedPlanKey("", "", 3, headB))
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Backend.PutObject(ctx, review.SavedPlanKey("", "", 2, headA), other); err != nil {
		t.Fatal(err)
	}

	h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 903))
	h.settle()
	// Refused, showing the fresh plan (worker) for review.
	h.wantConversation(2, "saved-plan-swapped", headA)
	if reply := h.lastBotComment(2); strings.Contains(reply, "cache") {
		t.Errorf("the reply shows the swapped plan (cache), not the fresh one:\n%s", reply)
	}
	if cloud := h.cloudObjects(); len(cloud) != 0 {
		t.Errorf("applied: the cloud holds %v", cloud)
	}
}

// TestForkPullRequestIsNeverPlannedOnItsOwn: anyone can open a pull
// request from a fork. The bot does not plan it (no source download, no
// state, no cloud call): a neutral check run says why. With
// allow-fork-prs, it is still not planned on its own; a reader's /kyku
// plan is refused with a one-line reply, a writer's plans it.
func TestForkPullRequestIsNeverPlannedOnItsOwn(t *testing.T) {
	forkOpened := func(t *testing.T) []byte {
		return fixture(t, "pull_request.opened.with-organization", func(p map[string]any) {
			p["number"] = 2
			obj(p, "pull_request")["number"] = 2
			obj(p, "pull_request", "head")["sha"] = headA
			obj(p, "pull_request", "head", "repo")["full_name"] = "mallory/Hello-World"
			obj(p, "installation")["id"] = installation
		})
	}
	for _, allow := range []bool{false, true} {
		name := map[bool]string{false: "default", true: "allow-fork-prs"}[allow]
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			if allow {
				h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte("allow-fork-prs: true\n"))
			}
			h.gh.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: "mallory", HeadSHA: headA, HeadRepo: "mallory/Hello-World", Files: []string{"kyku.yaml"}})
			h.gh.SetPermission(repoName, "reader", "read")
			h.gh.SetPermission(repoName, "writer", "write")
			h.deliver("pull_request", forkOpened(t))
			h.settle()

			runs := h.gh.CheckRuns(repoName)
			if len(runs) != 1 || runs[0].Conclusion != "neutral" {
				t.Fatalf("check runs %+v, want one neutral 'not planned'", runs)
			}
			if n := h.gh.CountRequests("GET", "/tarball/"+headA); n != 0 || len(h.opened()) != 0 || len(h.botComments(2)) != 0 {
				t.Fatalf("the fork was planned: %d downloads, %d workspaces, comments %+v", n, len(h.opened()), h.botComments(2))
			}

			h.deliver("issue_comment", commentOn(t, 2, "reader", "User", "/kyku plan", 910))
			h.settle()
			// A one-line refusal: the reader lacks permission (allowed),
			// or forks are not planned; the check run says whether
			// someone can ask for a plan.
			h.wantConversation(2, "fork-"+name)

			h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku plan", 911))
			h.settle()
			planned := len(h.opened()) > 0
			if planned != allow {
				t.Errorf("writer's /kyku plan planned = %v, want %v (allow-fork-prs)", planned, allow)
			}
			if len(h.cloudObjects()) != 0 {
				t.Error("a plan changed the cloud")
			}
		})
	}
}

// TestPlanCommandNeedsPermission: a reader's /kyku plan on a same-repository
// pull request takes no lock and calls no cloud: a one-line reply says
// why. With execution: actions, nothing is dispatched either.
func TestPlanCommandNeedsPermission(t *testing.T) {
	for _, execution := range []string{"in-process", "actions"} {
		t.Run(execution, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte("execution: "+execution+"\n"))
			h.gh.SetPermission(repoName, "reader", "read")
			h.pr(2, headA)
			h.deliver("issue_comment", commentOn(t, 2, "reader", "User", "/kyku plan", 920))
			h.settle()
			if len(h.opened()) != 0 || len(h.gh.Dispatches(repoName)) != 0 {
				t.Errorf("planned anyway: %d workspaces, dispatches %+v", len(h.opened()), h.gh.Dispatches(repoName))
			}
			h.wantConversation(2, "plan-needs-permission-"+execution)
		})
	}
}

// TestUnsignedRequestsCannotGrowMetrics: every unsigned request with a
// new X-GitHub-Event value used to add a metrics series. Now unknown
// events count as "other".
func TestUnsignedRequestsCannotGrowMetrics(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	for i := range 200 {
		h.post("evil-"+strings.Repeat("x", i), "d", []byte(`{}`), "-")
	}
	h.post("pull_request", "d", []byte(`{}`), "sha256=00")
	series := 0
	for k, v := range h.metrics() {
		if !strings.HasPrefix(k, "kyku_bot_webhooks_total") {
			continue
		}
		series++
		if strings.Contains(k, "evil") {
			t.Errorf("series %s from an unsigned header", k)
		}
		if k == `kyku_bot_webhooks_total{event="other",result="bad_signature"}` && v != 200 {
			t.Errorf("%s = %v, want 200", k, v)
		}
	}
	if series != 2 {
		t.Errorf("%d webhook series, want 2 (other and pull_request, bad_signature)", series)
	}
}
