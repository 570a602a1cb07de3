package action_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
)

// TestMergeWithItsOwnWorkflowIsRefused (issue 20, attack 2, the Action):
// the Action's review rules are its workflow's inputs. A pull request
// loosens them (required-approvals 2 → 1 in .github/workflows/kyku.yml);
// its plan comment says at the top that it changes the review rules and
// that they apply from the next PR. Its merge's push runs the workflow as
// the pull request left it, so the apply is refused (the workflow differs
// from the default branch's before the merge) and the job fails; the same
// for the merge queue's commit. (A pull request that leaves the workflow
// alone is applied on merge: TestReviewLifecycle.)
func TestMergeWithItsOwnWorkflowIsRefused(t *testing.T) {
	const group = "6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a"
	loosened := strings.Replace(workflowYAML, "required-approvals: 2", "required-approvals: 1", 1)
	for _, tc := range []struct {
		name, event string
	}{{"on the merge's push", "push"}, {"in the merge queue", "merge_group"}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.base["INPUT_REQUIRED-APPROVALS"] = "1" // what the pull request's workflow says
			f.setRef(defaultRef, f.config("web"))
			f.setCheckout(f.config("web", "worker"))
			f.srv.SetPermission(repoName, "octocat", "write")
			f.setRef(shaA, f.config("web", "worker"))
			f.setRef(group, f.config("web", "worker"))
			f.setWorkflow(loosened, shaA, mergeSHA, group)
			f.srv.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: author, HeadSHA: shaA, HeadRef: "loosen",
				Files: []string{configPath, workflowFile}})
			wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil), 0)
			if plan := f.lastReply(2); !strings.Contains(plan, "This pull request changes the review rules; they apply from the next PR (`"+workflowFile+"`)") {
				t.Errorf("the plan comment does not say the pull request changes the review rules:\n%s", plan)
			}
			f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})

			var r result
			if tc.event == "push" {
				f.srv.UpdatePullRequest(repoName, 2, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
				f.srv.SetCommitPulls(repoName, mergeSHA, 2)
				r = f.run("push", pushEvent(t, "refs/heads/"+defaultRef, mergeSHA), nil)
			} else {
				f.base["INPUT_APPLY"] = "merge-queue"
				r = f.run("merge_group", mergeGroupEvent(t, 2, group), nil)
			}
			wantCode(t, r, 1)
			wantOutputs(t, r, map[string]string{"applied": "false"})
			for _, want := range []string{"refused", "This merge changes `" + workflowFile + "`", "its inputs are the review rules", "never judged by the rules it brings"} {
				if reply := f.lastReply(2); !strings.Contains(reply, want) {
					t.Errorf("reply lacks %q:\n%s", want, reply)
				}
			}
			if c := f.cloudObjects(t); len(c) != 0 {
				t.Errorf("applied with the pull request's own inputs: %v", c)
			}
		})
	}
}

// TestPushOfAMergeIntoAnotherBranchIsRefused: a pull request was merged
// into a writer's branch (whose rules are the writer's); its merge commit
// then reaches the default branch by a push. The push names the merge
// commit, whose pull request GitHub lists: its base is not the default
// branch, so the apply is refused and nothing changes.
func TestPushOfAMergeIntoAnotherBranchIsRefused(t *testing.T) {
	f := newFixture(t)
	f.setRef(defaultRef, f.config("web"))
	f.setCheckout(f.config("web", "worker"))
	f.srv.SetPermission(repoName, "octocat", "write")
	f.setRef(shaA, f.config("web", "worker"))
	f.setWorkflow(workflowYAML, shaA, mergeSHA)
	f.srv.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: author, HeadSHA: shaA, HeadRef: "evil", BaseRef: "attacker-base",
		Files: []string{configPath}})
	wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil), 0)
	f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
	f.srv.UpdatePullRequest(repoName, 2, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
	f.srv.SetCommitPulls(repoName, mergeSHA, 2)
	r := f.run("push", pushEvent(t, "refs/heads/"+defaultRef, mergeSHA), nil)
	wantOutputs(t, r, map[string]string{"applied": "false"})
	if reply := f.lastReply(2); !strings.Contains(reply, "was merged into `attacker-base`, not the default branch") {
		t.Errorf("reply:\n%s", reply)
	}
	if c := f.cloudObjects(t); len(c) != 0 {
		t.Errorf("applied a merge into another branch: %v", c)
	}
}
