package bot_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/github/githubtest"
)

// TestBotRefusesSettingsARootCannotHonour: with terraform-roots: true,
// execution: actions (no one would plan the roots) and promotion (a root
// has one workspace: envs/prod would not wait for envs/staging) are
// refused when the default branch's settings are read: the pull request
// gets the failed check run "kyku settings" saying why in one line, and
// no root is planned or its state read.
func TestBotRefusesSettingsARootCannotHonour(t *testing.T) {
	for _, tt := range []struct {
		name, settings, want string
	}{
		{"execution: actions", "terraform-roots: true\nexecution: actions\n", ".kyku/config.yaml:2:1: execution: actions cannot go with terraform-roots: true"},
		{"promotion", "terraform-roots: true\npromotion: [staging, prod]\n", ".kyku/config.yaml:2:1: promotion cannot go with terraform-roots: true"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			states, srv := newStateServer(t)
			backend := "  backend \"http\" {\n    address = \"" + srv.URL + "/infra\"\n  }"
			h := newHarness(t, harnessOpts{})
			h.gh.SetFile(repoName, defaultBranch, settings.Path, []byte(tt.settings))
			h.gh.SetFile(repoName, defaultBranch, "infra/main.tf", []byte(rootFiles(backend, "a")))
			h.gh.SetFile(repoName, headA, "infra/main.tf", []byte(rootFiles(backend, "a", "b")))
			h.gh.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: "author", HeadSHA: headA, HeadRef: "feature", Files: []string{"infra/main.tf"}})
			h.deliver("pull_request", prOpened(t, 2, headA))
			h.settle()
			var check *githubtest.CheckRun
			for _, cr := range h.gh.CheckRuns(repoName) {
				switch cr.Name {
				case "kyku settings":
					check = &cr
				case "kyku plan (infra)":
					t.Errorf("the root was planned under settings that refuse it: %+v", cr)
				}
			}
			if check == nil || check.Conclusion != "failure" || !strings.Contains(check.Summary, tt.want) {
				t.Errorf("check run kyku settings = %+v; want a failure saying %q", check, tt.want)
			}
			if r, w := states.counts(); r+w != 0 {
				t.Errorf("the root's state was reached %d times", r+w)
			}
		})
	}
}
