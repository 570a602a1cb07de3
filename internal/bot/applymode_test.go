package bot_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
)

// TestApplyCommentInAMergeOnlyRepository: with apply: merge in the
// settings, a writer's `/kyku apply` on an approved, planned pull request
// applies nothing and dispatches nothing: review decides (the same rule
// as the Action's input apply), and one reply says why and where the
// setting is, for however many environments the command names.
func TestApplyCommentInAMergeOnlyRepository(t *testing.T) {
	const two = "apply: merge\nprojects:\n  - name: infra\n    config: kyku.yaml\n    environments: [staging, prod]\n"
	for _, tc := range []struct{ name, settings string }{
		{"in-process", "apply: merge\n"},
		{"two environments", two},
		{"execution: actions", "execution: actions\n" + two},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(tc.settings))
			h.gh.SetPermission(repoName, "writer", "write")
			h.gh.SetPermission(repoName, "reviewer", "write")
			h.pr(2, headA)
			h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})
			h.deliver("pull_request", prOpened(t, 2, headA))
			h.settle()

			h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 930))
			h.settle()
			var replies []string
			for _, c := range h.botComments(2) {
				if strings.Contains(c.Body, "Kyku did not run") {
					replies = append(replies, c.Body)
				}
			}
			want := "**Kyku did not run `/kyku apply`:** This repository applies on merge only (`apply: merge` in `.kyku/config.yaml` on the default branch), not on a comment.\n"
			if len(replies) != 1 || !strings.HasPrefix(replies[0], want) {
				t.Errorf("replies %q, want one starting %q", replies, want)
			}
			if c := h.cloudObjects(); len(c) != 0 {
				t.Errorf("applied on a comment: %v", c)
			}
			for _, d := range h.gh.Dispatches(repoName) {
				if d.Inputs["command"] == "apply" {
					t.Errorf("apply dispatched: %+v", d)
				}
			}
		})
	}
}
