package bot_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/review"
)

// TestRequeuedJobFollowsTheSettingsAsTheyAreWhenItRuns (issue 41): PR 3's
// /kyku apply, requeued behind PR 2's plan on a state without leases, is
// judged by .kyku/config.yaml as the default branch has it when the apply
// runs, not as it was when the comment was routed: a rule tightened
// meanwhile refuses it, a rule loosened meanwhile lets it apply.
func TestRequeuedJobFollowsTheSettingsAsTheyAreWhenItRuns(t *testing.T) {
	for _, tc := range []struct {
		name        string
		before, now string
		applied     bool
		reply       string // in PR 3's last reply
	}{
		{name: "tightened", before: "", now: "apply-permission: admin\n", reply: "needs at least `admin`"},
		{name: "loosened", before: "required-approvals: 2\n", now: "required-approvals: 1\n", applied: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// PR 2's plan, once asked for again, holds the state until released.
			rules, hold, held, release := heldPlans(t, func(req review.PlanRequest) bool { return req.Number == 2 })
			h, _, _ := s3Project(t, harnessOpts{rules: rules}, tc.before, false, configV1+vmA, configV1+vmB)
			openPRs(t, h)
			hold.Store(true)
			h.deliver("pull_request", fixtureAction(t, prOpened(t, 2, headA), "synchronize"))
			waitFor(t, "PR 2's plan never ran", held)
			h.deliver("issue_comment", commentOn(t, 3, "writer", "User", "/kyku apply", 1801))
			eventually(t, "PR 3's apply was not requeued behind PR 2's plan", func() bool {
				m := h.metrics()
				return m[requeuedApply] == 1 && m["kyku_bot_queue_depth"] == 1
			})
			h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(tc.now))
			release()
			h.settle()
			m := h.metrics()
			if got := m[applied] == 1; got != tc.applied {
				t.Errorf("PR 3 applied: %v, want %v (refused: %v)", got, tc.applied, m[`kyku_bot_jobs_total{kind="apply",outcome="refused"}`])
			}
			c := h.botComments(3)
			if len(c) == 0 {
				t.Fatal("PR 3 got no reply")
			}
			if reply := c[len(c)-1].Body; !strings.Contains(reply, tc.reply) {
				t.Errorf("PR 3's reply does not say %q:\n%s", tc.reply, reply)
			}
		})
	}
}
