package action_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
)

// TestProviderGeneratedSecretQuotedByAFailedApply: a pull request adds a
// password the provider generates at apply (fwtest_password's result,
// sensitive: no plan knows it) and a resource that reads it, whose create
// fails with an error quoting it. The apply's PR comment, the job summary
// and the log show the error scrubbed.
func TestProviderGeneratedSecretQuotedByAFailedApply(t *testing.T) {
	const generated = "Zq9hunter2"
	f, _, cfg := providerFixture(t)
	f.srv.SetPermission(repoName, "hubot", "write")
	f.srv.SetPermission(repoName, "octocat", "write")
	f.setCheckout(cfg(""))
	f.setRef(shaA, cfg("")+"  pw: { type: fwtest_password, properties: { name: pw } }\n"+
		"  echo: { type: fwtest_echo, properties: { input: \"${pw.result}\", refuse: true } }\n")
	f.addPR(2, shaA)
	wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil), 0)
	f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
	r := f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku apply", 8101), map[string]string{"GITHUB_ACTOR": "hubot"})
	wantCode(t, r, 1)
	if strings.Contains(r.stdout, generated) {
		t.Errorf("the log shows the generated password:\n%s", r.stdout)
	}
	if strings.Contains(r.summary, generated) {
		t.Errorf("the job summary shows the generated password:\n%s", r.summary)
	}
	var applied string
	for _, c := range f.srv.Comments(repoName, 2) {
		if strings.Contains(c.Body, generated) {
			t.Errorf("a comment shows the generated password:\n%s", c.Body)
		}
		if strings.Contains(c.Body, "refuses input") {
			applied = c.Body
		}
	}
	if !strings.Contains(applied, `refuses input "(sensitive)"`) || !strings.Contains(r.summary, `refuses input "(sensitive)"`) {
		t.Errorf("the apply's comment and summary do not show the scrubbed error:\n%s\n---\n%s", applied, r.summary)
	}
}
