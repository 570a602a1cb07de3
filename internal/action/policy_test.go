package action_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/review"
)

// sizePolicy denies large Vms and warns about every plan.
const sizePolicy = `package kyku

deny contains sprintf("Vm %s is large: large Vms need a policy owner", [name]) if {
	some name, r in input.resources
	r.type == "Vm"
	r.properties.size == "large"
}

warn contains sprintf("%d change(s) in %s", [count(input.changes), input.environment]) if true
`

// allowAll is what a pull request would like the policy to be.
const allowAll = "package kyku\n\ndeny contains \"never\" if false\n"

const policyFile = ".kyku/policies/sizes.rego"

// policyChecks lists the check runs "kyku policy (prod)" by head.
func (f *fixture) policyChecks(sha string) []githubtest.CheckRun {
	var out []githubtest.CheckRun
	for _, c := range f.srv.CheckRuns(repoName) {
		if c.Name == "kyku policy (prod)" && c.HeadSHA == sha {
			out = append(out, c)
		}
	}
	return out
}

func (f *fixture) lastReply(number int) string {
	cs := f.srv.Comments(repoName, number)
	if len(cs) == 0 {
		return ""
	}
	return cs[len(cs)-1].Body
}

// TestPolicyThroughTheAction runs real Rego policies through the Action
// the way a runner delivers events: the policies live on the default
// branch; a pull request's own change to them is ignored, at plan, at
// /kyku apply and at the merge (judged by the default branch before the
// merge); a denial is shown and blocks /kyku apply and the merge until a
// policy owner approves; a warning never blocks; a broken policy fails the
// check with its file and line.
func TestPolicyThroughTheAction(t *testing.T) {
	f := newFixture(t)
	f.base["INPUT_POLICY-OWNERS"] = "policy-lead, Octocoders/infra-owners"
	f.setRef(defaultRef, f.config("web"))
	f.srv.SetFile(repoName, defaultRef, policyFile, []byte(sizePolicy))
	f.setCheckout(f.config("web"))
	for _, who := range []string{"hubot", "octocat", "policy-lead"} {
		f.srv.SetPermission(repoName, who, "write")
	}

	// PR 2 adds a large Vm and rewrites the policy to allow everything.
	f.setRef(shaA, f.config("web", "worker:large"))
	f.srv.SetFile(repoName, shaA, policyFile, []byte(allowAll))
	f.addPR(2, shaA)

	t.Run("a denial is shown in the comment, the check run and the annotations; the PR's own policy is ignored", func(t *testing.T) {
		r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
		wantCode(t, r, 0)
		body := f.srv.Comments(repoName, 2)[0].Body
		for _, want := range []string{"#### ⛔ Policies deny this plan", "- Vm worker is large: large Vms need a policy owner", "#### ⚠️ Policy warnings", "```diff"} {
			if !strings.Contains(body, want) {
				t.Errorf("plan comment lacks %q:\n%s", want, body)
			}
		}
		if strings.Index(body, "Policies deny") > strings.Index(body, "```diff") {
			t.Error("the policy section is not before the changes")
		}
		checks := f.policyChecks(shaA)
		if len(checks) != 1 || checks[0].Conclusion != "failure" || checks[0].Title != "1 denial, 1 warning" {
			t.Fatalf("policy check runs %+v", checks)
		}
		if !strings.Contains(r.stdout, "::error title=kyku policy%3A denied::Vm worker is large") {
			t.Errorf("no denial annotation:\n%s", r.stdout)
		}
		if !strings.Contains(r.summary, "Policies deny this plan") {
			t.Errorf("the job summary does not show the denial:\n%s", r.summary)
		}
	})

	t.Run("the denial blocks /kyku apply approved by someone who is not a policy owner", func(t *testing.T) {
		f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
		r := f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku apply", 8001), map[string]string{"GITHUB_ACTOR": "hubot"})
		wantCode(t, r, 0)
		wantOutputs(t, r, map[string]string{"applied": "false"})
		reply := f.lastReply(2)
		for _, want := range []string{"refused", "The policies deny this plan", "`Vm worker is large: large Vms need a policy owner`", "`policy-lead`", "Counted: `octocat`."} {
			if !strings.Contains(reply, want) {
				t.Errorf("reply lacks %q:\n%s", want, reply)
			}
		}
		if n := len(f.cloudObjects(t)); n != 0 {
			t.Errorf("a denied plan was applied: %d objects", n)
		}
	})

	t.Run("a policy owner's approval overrides it, recorded in the audit record", func(t *testing.T) {
		f.srv.AddReview(repoName, 2, githubtest.Review{User: "policy-lead", State: "APPROVED", CommitID: shaA})
		r := f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku apply", 8002), map[string]string{"GITHUB_ACTOR": "hubot"})
		wantCode(t, r, 0)
		wantOutputs(t, r, map[string]string{"applied": "true"})
		if n := len(f.cloudObjects(t)); n != 2 {
			t.Fatalf("cloud has %d objects, want 2", n)
		}
		if reply := f.lastReply(2); !strings.Contains(reply, "overrode them") || !strings.Contains(reply, "`policy-lead`") {
			t.Errorf("the result does not say who overrode the policies:\n%s", reply)
		}
		rec := f.lastAudit(t)
		if rec.Policy == nil || strings.Join(rec.Policy.OverriddenBy, ",") != "policy-lead" || len(rec.Policy.Denied) != 1 || rec.Policy.Ref != defaultRef {
			t.Errorf("audit record policy %+v", rec.Policy)
		}
	})

	t.Run("a broken policy fails the check with its file and line", func(t *testing.T) {
		f.srv.SetFile(repoName, defaultRef, policyFile, []byte("package kyku\n\ndeny contains msg if {\n\tmsg := \n}\n"))
		f.setRef(shaC, f.config("web", "worker:large", "queue"))
		f.addPR(4, shaC)
		r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 4, shaC), nil)
		wantCode(t, r, 0)
		checks := f.policyChecks(shaC)
		if len(checks) != 1 || checks[0].Conclusion != "failure" || checks[0].Title != "The policies could not be evaluated" ||
			!strings.Contains(checks[0].Summary, ".kyku/policies/sizes.rego:5:1: unexpected } token") {
			t.Fatalf("policy check runs %+v", checks)
		}
		if !strings.Contains(r.stdout, "::error col=1,file=.kyku/policies/sizes.rego,line=5,title=kyku policy::unexpected } token") {
			t.Errorf("no annotation on the policy's line:\n%s", r.stdout)
		}
		f.srv.AddReview(repoName, 4, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaC})
		f.run("issue_comment", commentEvent(t, 4, "hubot", "/kyku apply", 8004), map[string]string{"GITHUB_ACTOR": "hubot"})
		if reply := f.lastReply(4); !strings.Contains(reply, "The policies could not be evaluated") || !strings.Contains(reply, "sizes.rego:5:1") {
			t.Errorf("a broken policy did not block the apply:\n%s", reply)
		}
	})
}

// TestPolicyWarningDoesNotBlock: a plan the policies only warn about is
// applied by /kyku apply without any policy owner.
func TestPolicyWarningDoesNotBlock(t *testing.T) {
	f := newFixture(t)
	f.setRef(defaultRef, f.config("web"))
	f.srv.SetFile(repoName, defaultRef, policyFile, []byte(sizePolicy))
	f.setRef(shaA, f.config("web", "worker"))
	f.addPR(2, shaA)
	f.srv.SetPermission(repoName, "hubot", "write")
	f.srv.SetPermission(repoName, "octocat", "write")
	f.srv.DenyCheckRuns(githubtest.TokenUser) // no checks: write
	r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
	wantCode(t, r, 0)
	if body := f.srv.Comments(repoName, 2)[0].Body; !strings.Contains(body, "- 2 change\\(s\\) in prod") || strings.Contains(body, "deny this plan") {
		t.Errorf("plan comment:\n%s", body)
	}
	if !strings.Contains(r.stdout, "::warning title=kyku policy%3A warning::2 change(s) in prod") ||
		!strings.Contains(r.stdout, "the policy check is in the job summary and annotations only") {
		t.Errorf("log:\n%s", r.stdout)
	}
	f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
	r = f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku apply", 9001), map[string]string{"GITHUB_ACTOR": "hubot"})
	wantOutputs(t, r, map[string]string{"applied": "true"})
	if rec := f.lastAudit(t); rec.Policy == nil || len(rec.Policy.Warnings) != 1 || len(rec.Policy.OverriddenBy) != 0 {
		t.Errorf("audit record policy %+v", rec.Policy)
	}
}

// TestPolicyChangedByThePRDoesNotJudgeItsMerge: the merged pull request
// relaxed the policy; the merge's push is judged by the default branch as
// it was before (the push's "before" commit), so the denial stands and
// the job fails.
func TestPolicyChangedByThePRDoesNotJudgeItsMerge(t *testing.T) {
	const before = pushBefore
	f := newFixture(t)
	f.setRef(before, f.config("web"))
	f.srv.SetFile(repoName, before, policyFile, []byte(sizePolicy))
	f.setRef(shaA, f.config("web", "worker:large"))
	f.srv.SetFile(repoName, shaA, policyFile, []byte(allowAll))
	f.setRef(defaultRef, f.config("web"))
	f.srv.SetFile(repoName, defaultRef, policyFile, []byte(sizePolicy))
	f.addPR(2, shaA)
	f.srv.SetPermission(repoName, "octocat", "write")
	wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil), 0)
	f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})

	// Merged: the default branch now holds the PR's relaxed policy.
	f.setRef(defaultRef, f.config("web", "worker:large"))
	f.srv.SetFile(repoName, defaultRef, policyFile, []byte(allowAll))
	f.setCheckout(f.config("web", "worker:large"))
	f.srv.UpdatePullRequest(repoName, 2, func(pr *githubtest.PullRequest) { pr.State, pr.Merged = "closed", true })
	f.srv.SetCommitPulls(repoName, mergeSHA, 2)
	r := f.run("push", pushEvent(t, "refs/heads/"+defaultRef, mergeSHA), nil)
	wantCode(t, r, 1)
	if !strings.Contains(r.summary, "The policies deny this plan") || len(f.cloudObjects(t)) != 0 {
		t.Errorf("the merge was applied under the PR's own policy; summary:\n%s", r.summary)
	}
}

// lastAudit is the newest audit record of prod.
func (f *fixture) lastAudit(t *testing.T) review.AuditRecord {
	t.Helper()
	b := f.backendStore()
	keys, err := b.ListObjects(t.Context(), "runs/prod/")
	must(t, err)
	if len(keys) == 0 {
		t.Fatal("no audit record")
	}
	data, err := b.GetObject(t.Context(), keys[len(keys)-1])
	must(t, err)
	var rec review.AuditRecord
	must(t, json.Unmarshal(data, &rec))
	return rec
}
