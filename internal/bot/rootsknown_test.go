package bot_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/github/githubtest"
)

// TestBotExpandsTerraformRootFromState: a root whose for_each reads an
// attribute in its state (OpenTofu's, in the http backend) is planned
// and, on the merge, applied by the bot with the instances that value
// makes, as OpenTofu plans it (it was "cannot be determined until apply"
// in the bot).
func TestBotExpandsTerraformRootFromState(t *testing.T) {
	states, srv := newStateServer(t)
	states.states["/infra"] = []byte(tofuState)
	backend := "  backend \"http\" {\n    address = \"" + srv.URL + "/infra\"\n  }"
	h := newHarness(t, harnessOpts{})
	h.gh.SetFile(repoName, defaultBranch, settings.Path, []byte("terraform-roots: true\napply: merge\n"))
	h.gh.SetFile(repoName, defaultBranch, "infra/main.tf", []byte(rootFiles(backend, "a")))
	head := []byte(rootFiles(backend, "a") + "resource \"terraform_data\" \"per\" {\n  for_each = toset([terraform_data.a.output, \"${terraform_data.a.output}2\"])\n  input    = each.key\n}\n")
	h.gh.SetFile(repoName, headA, "infra/main.tf", head)
	h.gh.SetFile(repoName, mergeSHA, "infra/main.tf", head)
	h.gh.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: "author", HeadSHA: headA, HeadRef: "feature", Files: []string{"infra/main.tf"}})
	h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	var body string
	for _, c := range h.gh.Comments(repoName, 2) {
		if strings.Contains(c.Body, "terraform_data") || strings.Contains(c.Body, "failed") {
			body += c.Body
		}
	}
	for _, want := range []string{`terraform_data.per["a"]`, `terraform_data.per["a2"]`, "2 to create"} {
		if !strings.Contains(body, want) {
			t.Errorf("the root's plan comment lacks %s:\n%s", want, body)
		}
	}

	h.gh.UpdatePullRequest(repoName, 2, func(p *githubtest.PullRequest) { p.State, p.Merged = "closed", true })
	h.gh.SetCommitPulls(repoName, mergeSHA, 2)
	h.deliver("pull_request", prMerged(t, 2, headA))
	h.settle()
	states.mu.Lock()
	state := string(states.states["/infra"])
	states.mu.Unlock()
	for _, want := range []string{`"name":"per"`, `"index_key":"a"`, `"index_key":"a2"`} {
		if !strings.Contains(state, want) {
			t.Errorf("state after the merge lacks %s:\n%s", want, state)
		}
	}
}

// TestBotRefusesRemoteStateBehindCount: a pull request cannot get past
// the rule that the default branch names the states a root reads by
// putting its terraform_remote_state under a count that reads state (left
// out when the rule first judged the root): the expansion that shows it
// is refused before anything of it is read, and the other state is never
// reached.
func TestBotRefusesRemoteStateBehindCount(t *testing.T) {
	states, srv := newStateServer(t)
	states.states["/infra"] = []byte(tofuState)
	states.states["/other-team"] = []byte(strings.Replace(tofuState, `"outputs": {}`, `"outputs": {"db_password": {"value": "s3cr3t-of-another-team", "type": "string"}}`, 1))
	backend := "  backend \"http\" {\n    address = \"" + srv.URL + "/infra\"\n  }"
	h := newHarness(t, harnessOpts{})
	h.gh.SetFile(repoName, defaultBranch, settings.Path, []byte("terraform-roots: true\n"))
	h.gh.SetFile(repoName, defaultBranch, "infra/main.tf", []byte(rootFiles(backend, "a")))
	head := rootFiles(backend, "a") + "data \"terraform_remote_state\" \"other\" {\n  count   = terraform_data.a.output == \"a\" ? 1 : 0\n" +
		"  backend = \"http\"\n  config  = { address = \"" + srv.URL + "/other-team\" }\n}\n" +
		"output \"leak\" {\n  value = data.terraform_remote_state.other[0].outputs\n}\n"
	h.gh.SetFile(repoName, headA, "infra/main.tf", []byte(head))
	h.gh.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: "author", HeadSHA: headA, HeadRef: "feature", Files: []string{"infra/main.tf"}})
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	states.mu.Lock()
	other := states.read["/other-team"]
	states.mu.Unlock()
	if other != 0 {
		t.Errorf("the other team's state was read %d times", other)
	}
	var body string
	for _, c := range h.gh.Comments(repoName, 2) {
		body += c.Body
	}
	if !strings.Contains(body, "the pull request adds data.terraform_remote_state.other[0], which reads another state") {
		t.Errorf("the plan comment does not refuse the remote state:\n%s", body)
	}
	if strings.Contains(body, "s3cr3t-of-another-team") {
		t.Errorf("the plan comment shows the other state's output:\n%s", body)
	}
}
