package bot_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/review"
)

// TestWaitingRootCommandFollowsTheSettingsAsTheyAreWhenItRuns: a
// Terraform root's /kyku apply that waits behind the root's plan is
// judged by .kyku/config.yaml as the default branch has it when the apply
// runs: apply-permission tightened meanwhile refuses it, and
// terraform-roots turned off meanwhile drops it; nothing is applied
// either way.
func TestWaitingRootCommandFollowsTheSettingsAsTheyAreWhenItRuns(t *testing.T) {
	for _, tc := range []struct {
		name, now, outcome, reply string
	}{
		{name: "apply-permission tightened", now: "terraform-roots: true\napply-permission: admin\n", outcome: "refused", reply: "needs at least `admin`"},
		{name: "terraform-roots turned off", now: "", outcome: "no-target"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The root's plan, once asked for again, holds the root's key
			// until released.
			rules, hold, held, release := heldPlans(t, func(review.PlanRequest) bool { return true })
			h, states := plannedRootPR(t, harnessOpts{rules: rules})
			hold.Store(true)
			h.deliver("pull_request", fixtureAction(t, prOpened(t, 2, headA), "synchronize"))
			waitFor(t, "the root's plan never ran again", held)
			h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply -p infra", 701))
			eventually(t, "the apply did not wait behind the root's plan", func() bool {
				m := h.metrics()
				return m[`kyku_bot_jobs_total{kind="comment",outcome="routed"}`] == 1 && m["kyku_bot_queue_depth"] == 1
			})
			h.gh.SetFile(repoName, defaultBranch, settings.Path, []byte(tc.now))
			release()
			h.settle()
			states.mu.Lock()
			state := string(states.states["/infra"])
			states.mu.Unlock()
			if strings.Contains(state, `"name":"b"`) {
				t.Errorf("terraform_data.b was applied under settings that no longer allow it; state:\n%s", state)
			}
			if got := h.metrics()[`kyku_bot_jobs_total{kind="apply",outcome="`+tc.outcome+`"}`]; got != 1 {
				t.Errorf("apply jobs with outcome %s = %v, want 1", tc.outcome, got)
			}
			if tc.reply != "" {
				c := h.botComments(2)
				if len(c) == 0 || !strings.Contains(c[len(c)-1].Body, tc.reply) {
					t.Errorf("the apply's reply does not say %q: %v", tc.reply, c)
				}
			}
		})
	}
}
