package bot_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/github/githubtest"
)

// TestBotNewTerraformRoots: a pull request that adds a Terraform root (the
// default branch has none there) is refused unless the default branch's
// settings say terraform-new-roots: allow: then its own backend is
// planned, a `/kyku apply` is refused, and its merge applies it, with the
// merge commit's backend only when it is the reviewed head's. A pull
// request that allows new roots in its own settings file is refused: the
// settings are the default branch's.
func TestBotNewTerraformRoots(t *testing.T) {
	tests := []struct {
		name string
		// settings on the default branch and at the pull request's head
		base, head string
		// mergePath: where the merge commit's backend points ("" the head's)
		mergePath   string
		wantPlan    string // in the root's plan comment
		wantApplyBy string // "merge", or "" nothing applied
	}{
		{
			name: "refused by default", base: "terraform-roots: true\napply: both\n",
			wantPlan: "infra: the pull request adds this Terraform root",
		},
		{
			name: "allowed", base: "terraform-roots: true\nterraform-new-roots: allow\napply: both\n",
			wantPlan: "Plan: 1 to create, 0 to update, 0 to replace, 0 to destroy", wantApplyBy: "merge",
		},
		{
			name: "allowed by the pull request's own settings", base: "terraform-roots: true\napply: both\n",
			head:     "terraform-roots: true\nterraform-new-roots: allow\napply: both\n",
			wantPlan: "infra: the pull request adds this Terraform root",
		},
		{
			name: "the merge commit's backend is not the reviewed head's", base: "terraform-roots: true\nterraform-new-roots: allow\napply: both\n",
			mergePath: "/elsewhere", wantPlan: "Plan: 1 to create",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			states, srv := newStateServer(t)
			backend := func(path string) string { return "  backend \"http\" {\n    address = \"" + srv.URL + path + "\"\n  }" }
			h := newHarness(t, harnessOpts{})
			h.gh.SetPermission(repoName, "writer", "write")
			h.gh.SetFile(repoName, defaultBranch, settings.Path, []byte(tt.base))
			files := []string{"infra/main.tf"}
			if tt.head != "" {
				h.gh.SetFile(repoName, headA, settings.Path, []byte(tt.head))
				h.gh.SetFile(repoName, mergeSHA, settings.Path, []byte(tt.head))
				files = append(files, settings.Path)
			}
			head := []byte(rootFiles(backend("/infra"), "a"))
			h.gh.SetFile(repoName, headA, "infra/main.tf", head)
			h.gh.SetFile(repoName, mergeSHA, "infra/main.tf", head)
			if tt.mergePath != "" {
				h.gh.SetFile(repoName, mergeSHA, "infra/main.tf", []byte(rootFiles(backend(tt.mergePath), "a")))
			}
			h.gh.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: "author", HeadSHA: headA, HeadRef: "feature", Files: files})
			h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})
			h.deliver("pull_request", prOpened(t, 2, headA))
			h.settle()
			var plan string
			for _, c := range h.botComments(2) {
				if strings.Contains(c.Body, "project=infra") {
					plan = c.Body
				}
			}
			if !strings.Contains(plan, tt.wantPlan) {
				t.Errorf("the root's plan comment lacks %q:\n%s", tt.wantPlan, plan)
			}

			// A comment's apply never applies a new root.
			h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply -p infra", 801))
			h.settle()
			if _, w := states.counts(); w != 0 {
				t.Fatalf("/kyku apply wrote the new root's state %d times", w)
			}

			h.gh.UpdatePullRequest(repoName, 2, func(p *githubtest.PullRequest) { p.State, p.Merged = "closed", true })
			h.gh.SetCommitPulls(repoName, mergeSHA, 2)
			h.deliver("pull_request", prMerged(t, 2, headA))
			h.settle()
			states.mu.Lock()
			state := string(states.states["/infra"])
			_, elsewhere := states.states["/elsewhere"]
			states.mu.Unlock()
			applied := strings.Contains(state, `"name":"a"`)
			if applied != (tt.wantApplyBy == "merge") || elsewhere {
				t.Errorf("after the merge: terraform_data.a applied %v (want %v), /elsewhere written %v; state:\n%s", applied, tt.wantApplyBy == "merge", elsewhere, state)
			}
		})
	}
}
