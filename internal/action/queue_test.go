package action_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/review"
)

// mergeGroupEvent is the repository's merge_group.checks_requested
// payload for pull request number merged at the queue's commit head.
func mergeGroupEvent(t *testing.T, number int, head string) map[string]any {
	return payload(t, "merge_group.checks_requested.json", func(ev map[string]any) {
		g := obj(ev, "merge_group")
		g["head_sha"] = head
		g["head_ref"] = "refs/heads/gh-readonly-queue/" + defaultRef + "/pr-" + itoa(number) + "-f95f852bd8fca8fcc58a9a2d6c842781e32a215e"
		obj(g, "head_commit")["id"] = head
	})
}

// TestMergeQueueThroughTheAction: with apply: merge-queue, the merge
// group's check plans the queue's commit and applies it when it is the
// reviewed plan; the push of the merge does not apply it again; a queue
// commit whose configuration is not the reviewed one fails the job and
// applies nothing; /kyku apply is refused.
func TestMergeQueueThroughTheAction(t *testing.T) {
	const groupA = "7b9f6e4a0c3d2b1a9e8f7d6c5b4a39281706f5e4"
	const groupB = "9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e"
	f := newFixture(t)
	f.base["INPUT_APPLY"] = "merge-queue"
	f.setRef(defaultRef, f.config("web"))
	f.setCheckout(f.config("web"))
	f.srv.SetPermission(repoName, "octocat", "write")
	f.srv.SetPermission(repoName, "hubot", "write")

	f.setRef(shaA, f.config("web", "worker"))
	f.setRef(groupA, f.config("web", "worker")) // the PR merged onto master: the same configuration
	f.addPR(2, shaA)
	wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil), 0)

	t.Run("/kyku apply is off", func(t *testing.T) {
		f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
		r := f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku apply", 6001), map[string]string{"GITHUB_ACTOR": "hubot"})
		wantCode(t, r, 0)
		if reply := f.lastReply(2); !strings.Contains(reply, "applies in the merge queue only") || len(f.cloudObjects(t)) != 0 {
			t.Errorf("reply %q, cloud %v", reply, f.cloudObjects(t))
		}
	})

	t.Run("the queue's commit is the reviewed plan: applied", func(t *testing.T) {
		r := f.run("merge_group", mergeGroupEvent(t, 2, groupA), nil)
		wantCode(t, r, 0)
		wantOutputs(t, r, map[string]string{"applied": "true"})
		if n := len(f.cloudObjects(t)); n != 2 {
			t.Fatalf("cloud has %d objects, want 2", n)
		}
		rec := f.lastAudit(t)
		if rec.Trigger != "merge-queue" || rec.HeadSHA != shaA || rec.MergeSHA != groupA || rec.PR != 2 {
			t.Errorf("audit record %+v", rec)
		}
	})

	t.Run("the push of the merge is not applied again", func(t *testing.T) {
		f.srv.UpdatePullRequest(repoName, 2, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
		f.srv.SetCommitPulls(repoName, groupA, 2)
		f.setCheckout(f.config("web", "worker"))
		before := f.serial()
		r := f.run("push", pushEvent(t, "refs/heads/"+defaultRef, groupA), nil)
		wantCode(t, r, 0)
		if f.serial() != before || !strings.Contains(r.summary, "merge-queue") {
			t.Errorf("serial %d → %d; summary:\n%s", before, f.serial(), r.summary)
		}
	})

	t.Run("a queue commit that is not the reviewed plan fails the job", func(t *testing.T) {
		f.setRef(defaultRef, f.config("web", "worker"))
		f.setRef(shaB, f.config("web", "worker", "cache"))
		// Another change reached master first: the queue's commit holds
		// both, which nobody reviewed together.
		f.setRef(groupB, f.config("web", "worker", "cache", "queue"))
		f.addPR(3, shaB)
		wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 3, shaB), nil), 0)
		f.srv.AddReview(repoName, 3, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaB})
		before := f.serial()
		r := f.run("merge_group", mergeGroupEvent(t, 3, groupB), nil)
		wantCode(t, r, 1)
		wantOutputs(t, r, map[string]string{"applied": "false"})
		if f.serial() != before || len(f.cloudObjects(t)) != 2 {
			t.Errorf("something was applied: serial %d → %d", before, f.serial())
		}
		if reply := f.lastReply(3); !strings.Contains(reply, "does not hold the configuration reviewed") || !strings.Contains(reply, "takes the pull request out of the queue") {
			t.Errorf("reply:\n%s", reply)
		}
	})

	t.Run("a group branch that names no pull request fails the job", func(t *testing.T) {
		ev := mergeGroupEvent(t, 3, groupB)
		obj(ev, "merge_group")["head_ref"] = "refs/heads/gh-readonly-queue/master/not-a-pr"
		wantCode(t, f.run("merge_group", ev, nil), 1)
	})
}

// TestPromotionThroughTheAction: with promotion [staging, prod], a
// /kyku apply to prod is refused until staging applied the same head —
// and an audit record forged into the backend without Kyku's own result
// comment does not count.
func TestPromotionThroughTheAction(t *testing.T) {
	f := newFixture(t)
	f.base["INPUT_PROMOTION"] = "staging, prod"
	f.setRef(defaultRef, f.config("web"))
	f.setCheckout(f.config("web"))
	f.setRef(shaA, f.config("web", "worker"))
	f.addPR(2, shaA)
	f.srv.SetPermission(repoName, "octocat", "write")
	f.srv.SetPermission(repoName, "hubot", "write")
	staging := map[string]string{"INPUT_ENVIRONMENT": "staging"}
	for _, extra := range []map[string]string{staging, nil} {
		wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), extra), 0)
	}
	f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
	applyProd := func(id int64) result {
		return f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku apply -e prod", id), map[string]string{"GITHUB_ACTOR": "hubot"})
	}

	r := applyProd(5001)
	wantOutputs(t, r, map[string]string{"applied": "false"})
	if reply := f.lastReply(2); !strings.Contains(reply, "Environment `staging` has not applied commit `a1a1a1a` yet") || !strings.Contains(reply, "`staging` → `prod`") {
		t.Errorf("prod before staging:\n%s", reply)
	}

	// A forged record of a successful staging apply (anyone with write
	// access to the backend could write one) is not enough.
	forged := `{"pr":2,"environment":"staging","requestedBy":"hubot","approvedBy":["octocat"],"trigger":"comment","headSha":"` + shaA +
		`","planDigest":"x","succeeded":2,"failed":0,"skipped":0,"startedAt":"2025-06-01T06:00:00Z","finishedAt":"2025-06-01T06:00:01Z"}`
	must(t, f.backendStore().PutObject(t.Context(), review.AuditKey("", "staging", time.Date(2025, 6, 1, 6, 0, 1, 0, time.UTC), 2), []byte(forged)))
	wantOutputs(t, applyProd(5002), map[string]string{"applied": "false"})
	if reply := f.lastReply(2); !strings.Contains(reply, "no result of Kyku's for it on this pull request") {
		t.Errorf("a forged audit record counted:\n%s", reply)
	}

	r = f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku apply -e staging", 5003), map[string]string{"GITHUB_ACTOR": "hubot", "INPUT_ENVIRONMENT": "staging"})
	wantOutputs(t, r, map[string]string{"applied": "true"})
	r = applyProd(5004)
	wantOutputs(t, r, map[string]string{"applied": "true"})
	if rec := f.lastAudit(t); rec.Environment != "prod" || rec.HeadSHA != shaA {
		t.Errorf("prod audit record %+v", rec)
	}
}
