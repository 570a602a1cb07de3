package bot_test

import (
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
)

const (
	mergeSHA = "c4295bd74fb0f4fda03689c3df3f2803b658fd85"
	// baseSHA is the default branch's commit merged pull requests are
	// based on (the harness makes it the default branch's tip).
	baseSHA = "ba5eba5eba5eba5eba5eba5eba5eba5eba5eba5e"
)

func prMerged(t *testing.T, number int, sha string) []byte {
	return fixture(t, "pull_request.closed", func(p map[string]any) {
		p["number"] = number
		pr := obj(p, "pull_request")
		pr["number"], pr["merged"], pr["merge_commit_sha"] = number, true, mergeSHA
		obj(p, "pull_request", "head")["sha"] = sha
		obj(p, "pull_request", "base")["sha"] = baseSHA
		obj(p, "installation")["id"] = installation
	})
}

func TestMergeAppliesOnlyWhenSettingsSaySo(t *testing.T) {
	for _, tc := range []struct {
		apply   string
		applied int
	}{{"merge", 2}, {"comment", 0}} {
		t.Run(tc.apply, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte("apply: "+tc.apply+"\n"))
			h.pr(2, headA)
			h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})
			h.deliver("pull_request", prOpened(t, 2, headA))
			h.settle()
			h.gh.UpdatePullRequest(repoName, 2, func(p *githubtest.PullRequest) { p.State, p.Merged = "closed", true })
			h.gh.SetCommitPulls(repoName, mergeSHA, 2)
			h.deliver("pull_request", prMerged(t, 2, headA))
			h.settle()
			if got := len(h.cloudObjects()); got != tc.applied {
				t.Errorf("apply: %s → %d objects in the cloud, want %d", tc.apply, got, tc.applied)
			}
			m := h.metrics()
			want := map[string]float64{"merge": 1, "comment": 0}[tc.apply]
			if got := m[`kyku_bot_jobs_total{kind="merge-apply",outcome="applied"}`]; got != want {
				t.Errorf("merge-apply applied = %v, want %v", got, want)
			}
		})
	}
}
