package bot_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/github/githubtest"
)

// TestBotFindsAMergesRootsAsMerged: the roots a merge applies are found
// in the merge commit, which is what reaches the default branch, not in
// the pull request's head, as the Action finds them. The pull request
// changes a module that, on its head, only infra/app calls; since it
// branched, the default branch added infra/site calling it too. Its
// merge applies infra/app's reviewed plan and refuses infra/site, which
// the merge changes and no one reviewed, saying so on the pull request as
// the Action does (the head's tree would leave infra/site unapplied,
// unsaid).
func TestBotFindsAMergesRootsAsMerged(t *testing.T) {
	states, srv := newStateServer(t)
	caller := func(path string) []byte {
		return []byte("terraform {\n  backend \"http\" {\n    address = \"" + srv.URL + path + "\"\n  }\n}\n" +
			"module \"web\" {\n  source = \"../../modules/web\"\n}\n")
	}
	web := func(v string) []byte {
		return []byte("resource \"terraform_data\" \"web\" {\n  input = \"" + v + "\"\n}\n")
	}
	h := newHarness(t, harnessOpts{})
	h.gh.SetFile(repoName, defaultBranch, settings.Path, []byte("terraform-roots: true\napply: merge\n"))
	for ref, files := range map[string]map[string][]byte{
		defaultBranch: {"infra/app/main.tf": caller("/app"), "infra/site/main.tf": caller("/site"), "modules/web/main.tf": web("v1")},
		headA:         {"infra/app/main.tf": caller("/app"), "modules/web/main.tf": web("v2")}, // branched before infra/site
		mergeSHA:      {"infra/app/main.tf": caller("/app"), "infra/site/main.tf": caller("/site"), "modules/web/main.tf": web("v2")},
	} {
		for name, data := range files {
			h.gh.SetFile(repoName, ref, name, data)
		}
	}
	h.gh.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: "author", HeadSHA: headA, HeadRef: "feature", Files: []string{"modules/web/main.tf"}})
	h.planAndMerge(t, mergeSHA, "reviewer")
	h.deliver("pull_request", prMerged(t, 2, headA))
	h.settle()

	var refusal string
	for _, c := range h.botComments(2) {
		if strings.HasPrefix(c.Body, "<!-- kyku:apply project=infra%2Fsite -->") {
			refusal = c.Body
		}
	}
	if !strings.Contains(refusal, "infra/site at "+headA+": no Terraform root there") || !strings.Contains(refusal, "Nothing was applied") {
		t.Errorf("no refusal of infra/site on #2 saying its reviewed head has no such root; got %q", refusal)
	}
	states.mu.Lock()
	app, site := string(states.states["/app"]), string(states.states["/site"])
	states.mu.Unlock()
	if !strings.Contains(app, `"name":"web"`) {
		t.Errorf("infra/app's reviewed plan was not applied:\n%s", app)
	}
	if site != "" {
		t.Errorf("infra/site's unreviewed change was applied:\n%s", site)
	}
}
