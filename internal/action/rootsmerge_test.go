package action_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
)

// TestTerraformRootsOfAMergeAsMerged: the roots a merge applies are
// found in the merge commit, which is what reaches the default branch,
// not in the pull request's head. The pull request changes a module
// that, on its head, only infra/app calls; since it branched, the
// default branch added infra/site calling it too. Its merge applies
// infra/app's reviewed plan and refuses infra/site, which the merge
// changes and no one reviewed, saying so on the pull request (the
// head's tree would leave infra/site unapplied, unsaid).
func TestTerraformRootsOfAMergeAsMerged(t *testing.T) {
	f := newFixture(t)
	siteBackend, _, _ := f.tfBackend("site.tfstate")
	site := map[string]string{"infra/site/main.tf": siteBackend + "module \"web\" {\n  source = \"../../modules/web\"\n  name   = \"site\"\n}\n"}
	base := f.tfRepo("v1", site)
	f.setTree(defaultRef, base)
	f.setTree(pushBefore, base)
	f.setTree(shaA, f.tfRepo("v2", nil)) // branched before infra/site
	f.addPRFiles(2, shaA, "modules/web/main.tf")
	f.srv.SetPermission(repoName, "octocat", "write")
	wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil), 0)
	f.planComment(t, 2, "infra/app")

	f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
	f.srv.UpdatePullRequest(repoName, 2, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
	f.srv.SetCommitPulls(repoName, mergeSHA, 2)
	f.setTree(mergeSHA, f.tfRepo("v2", site))
	r := f.run("push", pushEvent(t, "refs/heads/"+defaultRef, mergeSHA), nil)
	wantCode(t, r, 1)
	var refusal string
	for _, c := range f.srv.Comments(repoName, 2) {
		if strings.HasPrefix(c.Body, "<!-- kyku:apply env=prod project=infra%2Fsite -->") {
			refusal = c.Body
		}
	}
	if !strings.Contains(refusal, "infra/site at "+shaA+": no Terraform root there") || !strings.Contains(refusal, "Nothing was applied") {
		t.Errorf("no refusal of infra/site on #2 saying its reviewed head has no such root; got %q", refusal)
	}
	if site, _ := f.rootBackend(t, "infra/site", "site.tfstate").Read(t.Context()); site != nil {
		t.Errorf("infra/site's unreviewed change was applied: %v", site.Names())
	}
	st, err := f.rootBackend(t, "infra/app", "app.tfstate").Read(t.Context())
	must(t, err)
	if st == nil || strings.Join(st.Names(), " ") != "module.web.terraform_data.web" {
		t.Errorf("infra/app's state after the merge: %v, want its reviewed plan applied", st)
	}
}
