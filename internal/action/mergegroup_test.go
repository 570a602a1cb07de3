package action_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
)

// TestMergeGroupIntoAnotherBranchIsNotApplied: a pull request reviewed
// and approved against the default branch is re-targeted to another
// branch with a merge queue of its own (release). The queue's check for
// that branch must not apply: Kyku applies only what lands on the default
// branch. It says so and applies nothing; the same group into the default
// branch applies.
func TestMergeGroupIntoAnotherBranchIsNotApplied(t *testing.T) {
	const group = "7b9f6e4a0c3d2b1a9e8f7d6c5b4a39281706f5e4"
	f := newFixture(t)
	f.base["INPUT_APPLY"] = "merge-queue"
	f.setRef(defaultRef, f.config("web"))
	f.setCheckout(f.config("web"))
	f.srv.SetPermission(repoName, "octocat", "write")
	f.setRef(shaA, f.config("web", "worker"))
	f.setRef(group, f.config("web", "worker"))
	f.addPR(2, shaA)
	wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil), 0)
	f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
	f.srv.UpdatePullRequest(repoName, 2, func(pr *githubtest.PullRequest) { pr.BaseRef = "release" })

	ev := mergeGroupEvent(t, 2, group)
	g := obj(ev, "merge_group")
	g["base_ref"] = "refs/heads/release"
	g["head_ref"] = "refs/heads/gh-readonly-queue/release/pr-2-f95f852bd8fca8fcc58a9a2d6c842781e32a215e"
	r := f.run("merge_group", ev, nil)
	wantCode(t, r, 0)
	wantOutputs(t, r, map[string]string{"applied": "false"})
	if !strings.Contains(r.summary, "merges into `release`, not the default branch `master`") {
		t.Errorf("summary does not say why:\n%s", r.summary)
	}
	if n := len(f.cloudObjects(t)); n != 0 {
		t.Fatalf("applied a merge group into release: the cloud holds %d objects", n)
	}

	f.srv.UpdatePullRequest(repoName, 2, func(pr *githubtest.PullRequest) { pr.BaseRef = defaultRef })
	r = f.run("merge_group", mergeGroupEvent(t, 2, group), nil)
	wantCode(t, r, 0)
	if n := len(f.cloudObjects(t)); n != 2 {
		t.Errorf("the group into the default branch: cloud holds %d objects, want 2\n%s", n, r.stdout)
	}
}
