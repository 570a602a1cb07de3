package bot_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/review"
)

const planSecret = "hunter2-image-secret"

// sensitiveImage is a project whose Vm's image is a sensitive variable's
// value the sim does not know: the plan is refused with a message quoting
// it (`the sim knows images …, not "…"`).
const sensitiveImage = "variables:\n  image: { type: string, sensitive: true, default: " + planSecret + " }\n" +
	"resources:\n  web:\n    type: Vm\n    properties: { image: \"${var.image}\" }\n"

// planFailsWith runs a pull request whose head is sensitiveImage through
// a bot with rules and returns the plan's check run and the bot's log.
func planFailsWith(t *testing.T, rules bot.Rules) (summary, logs string) {
	t.Helper()
	h := newHarness(t, harnessOpts{rules: rules})
	h.gh.SetFile(repoName, headA, "kyku.yaml", []byte(sensitiveImage))
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	run := h.checkRun(repoName)
	if run.Conclusion != "failure" || run.Title != "Plan failed" {
		t.Fatalf("check run %s %q, want a failed plan:\n%s", run.Conclusion, run.Title, run.Summary)
	}
	return run.Summary, h.logs()
}

// TestPlanFailedCheckRunScrubsSecrets: the check run of a plan that
// failed with a message quoting a sensitive value says "(sensitive)"
// instead, as the plan comment does, and so does the bot's log: review.Plan
// returns its error scrubbed.
func TestPlanFailedCheckRunScrubsSecrets(t *testing.T) {
	summary, logs := planFailsWith(t, bot.Rules{})
	if strings.Contains(summary, planSecret) || !strings.Contains(summary, `not "(sensitive)"`) {
		t.Errorf("the check run shows the secret or does not say what it masked:\n%s", summary)
	}
	if strings.Contains(logs, planSecret) {
		t.Errorf("the bot's log shows the secret:\n%s", logs)
	}
}

// TestPlanFailedCheckRunScrubsSecretsOfAnyRules: rules whose Plan returns
// the secret in clear — wrapped, twice, over several lines — still give a
// scrubbed check run and log: the bot scrubs with the configuration it
// planned.
func TestPlanFailedCheckRunScrubsSecretsOfAnyRules(t *testing.T) {
	leaky := bot.Rules{Plan: func(ctx context.Context, d review.Deps, req review.PlanRequest) (*review.PlanOutcome, error) {
		return nil, fmt.Errorf("plan prod: %w", fmt.Errorf("provider said:\n  image %q is unknown\n  (%s)", planSecret, planSecret))
	}}
	summary, logs := planFailsWith(t, leaky)
	if strings.Contains(summary, planSecret) || strings.Count(summary, "(sensitive)") != 2 {
		t.Errorf("the check run shows the secret or does not say what it masked:\n%s", summary)
	}
	if strings.Contains(logs, planSecret) {
		t.Errorf("the bot's log shows the secret:\n%s", logs)
	}
}
