package action_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// unsandboxed runs the test providers on the host: their test cloud is a
// directory of the test's, which a sandboxed provider cannot write
// (sandbox_test.go tests the sandbox).
var unsandboxed = map[string]string{"INPUT_PROVIDER-SANDBOX": "off"}

// TestProviderGeneratedSecretQuotedByAFailedApply: a pull request adds a
// password the provider generates at apply (fwtest_secret's result,
// sensitive: no plan knows it) and a resource that reads it, whose create
// fails with an error quoting it. The apply's PR comment, the job summary
// and the log show the error scrubbed.
func TestProviderGeneratedSecretQuotedByAFailedApply(t *testing.T) {
	const generated = "Zq9hunter2"
	f, _, cfg := providerFixture(t)
	f.srv.SetPermission(repoName, "hubot", "write")
	f.srv.SetPermission(repoName, "octocat", "write")
	f.setCheckout(cfg(""))
	f.setRef(shaA, cfg("")+"  pw: { type: fwtest_secret, properties: { name: pw } }\n"+
		"  echo: { type: fwtest_echo, properties: { input: \"${pw.result}\", refuse: true } }\n")
	f.addPR(2, shaA)
	wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), unsandboxed), 0)
	f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
	r := f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku apply", 8101), map[string]string{"GITHUB_ACTOR": "hubot", "INPUT_PROVIDER-SANDBOX": "off"})
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

// TestWriteOnlyAttributeThroughReview: a pull request sets a write-only
// attribute in clear. The saved plan in the backend, the plan comment,
// plan.json, the apply's comment, the job summaries and the log never
// hold it; the apply, which compares the saved plan with a fresh one,
// takes it again from the approved commit's configuration and sends it
// to the provider.
func TestWriteOnlyAttributeThroughReview(t *testing.T) {
	const wo = "wo-review-Xy7kq"
	f, cloud, cfg := providerFixture(t)
	f.srv.SetPermission(repoName, "hubot", "write")
	f.srv.SetPermission(repoName, "octocat", "write")
	f.setCheckout(cfg(""))
	f.setRef(shaA, cfg("")+"  pw: { type: fwtest_secret, properties: { name: pw, password_wo: "+wo+" } }\n")
	f.addPR(2, shaA)
	planned := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), unsandboxed)
	wantCode(t, planned, 0)
	saved, err := f.backendStore().GetObject(t.Context(), review.SavedPlanKey("", envName, 2, shaA))
	must(t, err)
	planJSON, err := os.ReadFile(planned.outputs["plan-file"])
	must(t, err)
	f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
	applied := f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku apply", 8102), map[string]string{"GITHUB_ACTOR": "hubot", "INPUT_PROVIDER-SANDBOX": "off"})
	wantCode(t, applied, 0)
	texts := map[string]string{"saved plan": string(saved), "plan.json": string(planJSON),
		"plan log": planned.stdout, "plan summary": planned.summary, "apply log": applied.stdout, "apply summary": applied.summary}
	for i, c := range f.srv.Comments(repoName, 2) {
		texts[fmt.Sprintf("comment %d", i+1)] = c.Body
	}
	for what, text := range texts {
		if strings.Contains(text, "Xy7kq") {
			t.Errorf("the %s holds the write-only value:\n%s", what, text)
		}
	}
	if got := tfplugintest.Received(t, cloud, "pw"); got != tfplugintest.Digest(wo) {
		t.Errorf("the cloud received a value of digest %q, want that of %q", got, wo)
	}
}
