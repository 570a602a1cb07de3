package bot_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/github/githubtest"
)

// TestBotRefusesAnHTTPRootStateOnItsDisk: a bot whose opener keeps a
// Terraform root's http state files (saved plans, backups) on its own
// disk, as cmd/bot's does, refuses the root's http backend when it
// judges the place (tenancy.ConfineTerraform), before opening anything:
// the root's plan comment and check run name the backend block and say
// why, and the state server is never reached.
func TestBotRefusesAnHTTPRootStateOnItsDisk(t *testing.T) {
	states, srv := newStateServer(t)
	states.states["/infra"] = []byte(tofuState)
	backend := "  backend \"http\" {\n    address = \"" + srv.URL + "/infra\"\n  }"
	h := newHarness(t, harnessOpts{diskRootFiles: true})
	h.gh.SetFile(repoName, defaultBranch, settings.Path, []byte("terraform-roots: true\n"))
	h.gh.SetFile(repoName, defaultBranch, "infra/main.tf", []byte(rootFiles(backend, "a")))
	h.gh.SetFile(repoName, headA, "infra/main.tf", []byte(rootFiles(backend, "a", "b")))
	h.gh.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: "author", HeadSHA: headA, HeadRef: "feature", Files: []string{"infra/main.tf"}})
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()

	const want = "infra/main.tf:2:3: a Terraform root's http backend keeps Kyku's saved plans and backups on the bot's disk, " +
		"which no other replica or restart sees: the bot opens a root's state in s3 or gcs"
	var body string
	for _, c := range h.botComments(2) {
		if strings.Contains(c.Body, "infra") {
			body = c.Body
		}
	}
	if !strings.Contains(body, want) {
		t.Errorf("the root's plan comment lacks %q:\n%s", want, body)
	}
	if check := h.checkRunNamed("kyku plan (infra)"); check.Status != "completed" || check.Conclusion == "success" || !strings.Contains(check.Summary+check.Text, want) {
		t.Errorf("check run kyku plan (infra) = %+v; want it completed, not a success, saying %q", check, want)
	}
	if reads, writes := states.counts(); reads != 0 || writes != 0 {
		t.Errorf("the state server was reached: %d reads, %d writes", reads, writes)
	}
	if n := len(h.opened()); n != 0 {
		t.Errorf("the opener was called %d times; the refusal comes before it", n)
	}
}
