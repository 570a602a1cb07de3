package bot_test

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/command"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/review"
)

// TestFailedPermissionCheckFailsTheApply: PR 2's /kyku apply on a state
// without leases checks the commenter's permission before it is requeued
// behind the state's other jobs; when GitHub fails that check (an error,
// not an answer), the job ends with the error, reported as such, and
// nothing is applied (the commenter is told so): the failure is not read as "may not" and the apply
// does not go on outside its turn on the state.
func TestFailedPermissionCheckFailsTheApply(t *testing.T) {
	h, _, _ := s3Project(t, harnessOpts{}, "", false, configV1+vmA, configV1+vmB)
	openPRs(t, h)
	before := h.cloudObjects()
	// The job's read of the pull request (after the one that pinned the
	// head the comment arrived on) waits; then the next
	// request, the permission check, fails (a rate limit reset an hour
	// away: not retried).
	var reads atomic.Int32
	release := h.gh.Hold(func(method, path string) bool {
		return method == "GET" && strings.HasSuffix(path, "/pulls/2") && reads.Add(1) == 2
	})
	t.Cleanup(release)
	h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 1701))
	eventually(t, "the apply never read the pull request", func() bool { return h.gh.Held() == 1 })
	h.gh.FailNext(1, githubtest.FailPrimary403, time.Hour)
	release()
	h.settle()

	m := h.metrics()
	for _, outcome := range []string{"applied", "refused", "error"} {
		want := 0.0
		if outcome == "error" {
			want = 1
		}
		if got := m[`kyku_bot_jobs_total{kind="apply",outcome="`+outcome+`"}`]; got != want {
			t.Errorf("apply outcome %s counted %v, want %v", outcome, got, want)
		}
	}
	if d := cmp.Diff(before, h.cloudObjects()); d != "" {
		t.Errorf("the cloud changed (-before +after):\n%s", d)
	}
	// The commenter hears it: one line saying the permission could not
	// be checked and nothing was applied.
	replies := repliesMarked(h, 2, review.TargetReplyMarker(1701, "", ""))
	if d := cmp.Diff([]string{review.CommandUnchecked(command.Apply, "writer")}, replies); d != "" {
		t.Errorf("the bot's replies to the comment (-want +got):\n%s", d)
	}
	if !strings.Contains(h.logs(), "permission") {
		t.Errorf("the job's error does not say the permission check failed; log:\n%s", h.logs())
	}
}

// TestFailedPermissionCheckIsAnsweredUnderActions: under execution:
// actions the commenter's permission is checked before the workflow is
// dispatched; when GitHub fails that check, nothing is dispatched and the
// commenter is told, in one line, that nothing was applied.
func TestFailedPermissionCheckIsAnsweredUnderActions(t *testing.T) {
	h := actionsApplyOnPR2(t)
	var reads atomic.Int32
	release := h.gh.Hold(func(method, path string) bool {
		return method == "GET" && strings.HasSuffix(path, "/pulls/2") && reads.Add(1) == 2
	})
	t.Cleanup(release)
	h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 1202))
	eventually(t, "the route never read the pull request", func() bool { return h.gh.Held() == 1 })
	h.gh.FailNext(1, githubtest.FailPrimary403, time.Hour)
	release()
	h.settle()
	if d := h.gh.Dispatches(repoName); len(d) != 0 {
		t.Errorf("dispatched %+v after a failed permission check", d)
	}
	replies := repliesMarked(h, 2, review.ReplyMarker(1202))
	if d := cmp.Diff([]string{review.CommandUnchecked(command.Apply, "writer")}, replies); d != "" {
		t.Errorf("the bot's replies to the comment (-want +got):\n%s", d)
	}
}

// TestFailedPermissionCheckKeepsAnotherTargetsRefusal: a /kyku plan naming
// two targets (one project's two environments) is judged by each one's
// job. One job's check says the commenter may not plan (a refusal); the
// other's check fails (GitHub's error). Each answer is kept under its
// target's own marker: neither is written over by the other, whichever
// job answers last.
func TestFailedPermissionCheckKeepsAnotherTargetsRefusal(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml",
		[]byte("projects:\n  - name: infra\n    config: kyku.yaml\n    environments: [staging, prod]\n"))
	h.gh.SetPermission(repoName, "writer", "read")
	h.pr(2, headA)
	// A commenter's comment carrying a target's marker is not Kyku's:
	// never edited, never taken for its reply.
	forged := "**Kyku did not run `/kyku plan`:** nothing to see.\n\n" + review.TargetReplyMarker(1801, "infra", "staging") + "\n"
	forgedID := h.gh.AddComment(repoName, 2, "writer", forged)
	// The first job's read of the pull request waits; the other job is
	// refused meanwhile. Then the first job's next request, its permission
	// check, fails (a rate limit reset an hour away: not retried).
	var reads atomic.Int32
	release := h.gh.Hold(func(method, path string) bool {
		return method == "GET" && strings.HasSuffix(path, "/pulls/2") && reads.Add(1) == 1
	})
	t.Cleanup(release)
	h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku plan", 1801))
	eventually(t, "no job read the pull request", func() bool { return h.gh.Held() == 1 })
	refusal := func(env string) string {
		return "**Kyku did not run `/kyku plan`:** `writer` has `read` permission on this repository; `/kyku plan` needs at least `write`. " +
			"Ask someone with `write` permission to comment `/kyku plan -e " + env + " -p infra`.\n"
	}
	var refused string // the environment the second job refused
	eventually(t, "the other job never refused", func() bool {
		for _, env := range []string{"staging", "prod"} {
			for _, c := range h.botComments(2) {
				if strings.HasPrefix(c.Body, refusal(env)) {
					refused = env
					return true
				}
			}
		}
		return false
	})
	// Its job ends with its 👎 (after 👀): nothing of it is left to
	// take the failure meant for the other's check.
	eventually(t, "the refused job never reacted", func() bool {
		return h.gh.CountRequests("POST", "/issues/comments/1801/reactions") == 2
	})
	h.gh.FailNext(1, githubtest.FailPrimary403, time.Hour)
	release()
	h.settle()

	unchecked := "staging"
	if refused == "staging" {
		unchecked = "prod"
	}
	// Both answers are there to read, whatever their markers.
	var bodies []string
	for _, c := range h.botComments(2) {
		bodies = append(bodies, c.Body)
	}
	for _, answer := range []string{refusal(refused), review.CommandUnchecked(command.Plan, "writer")} {
		if !slices.ContainsFunc(bodies, func(b string) bool { return strings.HasPrefix(b, answer) }) {
			t.Errorf("no comment of the bot's says %q; its comments:\n%s", answer, strings.Join(bodies, "\n---\n"))
		}
	}
	for _, c := range h.gh.Comments(repoName, 2) {
		if c.ID == forgedID && c.Body != forged {
			t.Errorf("the commenter's comment carrying a marker was edited: %q", c.Body)
		}
	}
	got := map[string]string{}
	for _, c := range h.botComments(2) {
		for _, env := range []string{"staging", "prod"} {
			if body, ok := strings.CutSuffix(c.Body, "\n"+review.TargetReplyMarker(1801, "infra", env)+"\n"); ok {
				got[env] = body
			}
		}
	}
	want := map[string]string{refused: refusal(refused), unchecked: review.CommandUnchecked(command.Plan, "writer")}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the bot's replies to the comment, by target (-want +got):\n%s", d)
	}
}

// TestFailedHeadArrivalCheckIsAnsweredUnderActions: when GitHub fails to
// list the head's check suites, the bot
// (here its rate limit, spent for an hour) does not dispatch /kyku apply:
// the comment gets one line saying the check failed and nothing was
// applied, and the route ends with the error.
func TestFailedHeadArrivalCheckIsAnsweredUnderActions(t *testing.T) {
	h := actionsApplyOnPR2(t)
	h.gh.FailMatching(func(method, path string) bool { return strings.HasSuffix(path, "/check-suites") }, githubtest.FailPrimary403, time.Hour)
	h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 1204))
	h.settle()
	if d := h.gh.Dispatches(repoName); len(d) != 0 {
		t.Errorf("dispatched %+v after a failed check of when the head arrived", d)
	}
	replies := repliesMarked(h, 2, review.ReplyMarker(1204))
	if d := cmp.Diff([]string{review.HeadUnchecked(headA)}, replies); d != "" {
		t.Errorf("the bot's replies to the comment (-want +got):\n%s", d)
	}
}

// repliesMarked is the bodies of the bot's comments on pull request number
// that end with marker (a reply's), the marker cut.
func repliesMarked(h *harness, number int, marker string) []string {
	var out []string
	for _, c := range h.botComments(number) {
		if body, ok := strings.CutSuffix(c.Body, "\n"+marker+"\n"); ok {
			out = append(out, body)
		}
	}
	return out
}
