package bot_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/review"
)

// botSizePolicy denies large Vms (configV2's worker is large) and warns
// about every plan.
const botSizePolicy = `package kyku

deny contains sprintf("Vm %s is large", [name]) if {
	some name, r in input.resources
	r.type == "Vm"
	r.properties.size == "large"
}

warn contains "every plan is checked" if true
`

const botPolicyFile = ".kyku/policies/sizes.rego"

// policyChecks are the check runs "kyku policy (default)" on sha.
func (h *harness) policyChecks(sha string) []githubtest.CheckRun {
	var out []githubtest.CheckRun
	for _, c := range h.gh.CheckRuns(repoName) {
		if c.Name == "kyku policy (default)" && c.HeadSHA == sha {
			out = append(out, c)
		}
	}
	return out
}

// audits decodes every audit record of the repository's local backend.
func (h *harness) audits() []review.AuditRecord {
	h.t.Helper()
	var out []review.AuditRecord
	_ = filepath.WalkDir(h.stateDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(filepath.ToSlash(p), "/runs/") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var rec review.AuditRecord
		if err := json.Unmarshal(data, &rec); err != nil {
			h.t.Fatalf("audit record %s: %v", p, err)
		}
		out = append(out, rec)
		return nil
	})
	slices.SortFunc(out, func(a, b review.AuditRecord) int { return a.FinishedAt.Compare(b.FinishedAt) })
	return out
}

// TestPolicyThroughTheBot drives signed webhooks through the bot's HTTP
// server with real Rego policies on the default branch: the denial is in
// the plan comment and a failing check run, the pull request's own
// relaxed policy is ignored, /kyku apply is refused until a member of the
// policy owners' team approves, and the override is in the audit record.
// The merge of a second pull request that relaxed the policy is judged by
// the base commit's policy and refused.
func TestPolicyThroughTheBot(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte("apply: both\npolicy-owners: [Octocoders/infra-owners]\n"))
	h.gh.SetFile(repoName, defaultBranch, botPolicyFile, []byte(botSizePolicy))
	h.gh.SetFile(repoName, headA, botPolicyFile, []byte("package kyku\n")) // the PR's own: allows everything
	h.gh.SetPermission(repoName, "owner1", "write")
	h.gh.AddTeamMember("Octocoders", "infra-owners", "owner1")
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()

	plan := h.botComments(2)
	if len(plan) != 1 {
		t.Fatalf("plan comments: %+v", plan)
	}
	checks := h.policyChecks(headA)
	if len(checks) != 1 || checks[0].Conclusion != "failure" {
		t.Fatalf("policy check runs %+v", checks)
	}
	// The denial (Vm worker is large) leads the plan comment; the policy
	// check names the policy file.
	h.wantConversation(2, "policy-denies", headA)

	h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})
	h.deliver("issue_comment", commentOn(t, 2, "reviewer", "User", "/kyku apply", 701))
	h.settle()
	h.wantConversation(2, "policy-denies-the-apply", headA) // naming the owners' team
	if c := h.cloudObjects(); len(c) != 0 {
		t.Fatalf("a denied plan was applied: %v", c)
	}

	h.gh.AddReview(repoName, 2, githubtest.Review{User: "owner1", State: "APPROVED", CommitID: headA})
	h.deliver("issue_comment", commentOn(t, 2, "reviewer", "User", "/kyku apply", 702))
	h.settle()
	if c := h.cloudObjects(); len(c) != 2 {
		t.Fatalf("the owner's approval did not let it apply: cloud %v; reply:\n%s", c, h.lastBotComment(2))
	}
	recs := h.audits()
	if len(recs) != 1 || recs[0].Policy == nil || strings.Join(recs[0].Policy.OverriddenBy, ",") != "owner1" || recs[0].Policy.Ref != defaultBranch {
		t.Fatalf("audit records %+v", recs)
	}

	// PR 3 adds a second large Vm and relaxes the policy; merged, the
	// default branch holds the relaxed policy, but the base commit (the
	// default branch before the merge) still denies.
	h.gh.SetFile(repoName, headB, "kyku.yaml", []byte(configV3+"  big:\n    type: Vm\n    properties: { image: debian-12, size: large }\n"))
	h.gh.SetFile(repoName, headB, botPolicyFile, []byte("package kyku\n"))
	h.gh.SetFile(repoName, baseSHA, "kyku.yaml", []byte(configV2))
	h.gh.SetFile(repoName, baseSHA, ".kyku/config.yaml", []byte("apply: both\npolicy-owners: [Octocoders/infra-owners]\n"))
	h.gh.SetFile(repoName, baseSHA, botPolicyFile, []byte(botSizePolicy))
	h.gh.SetFile(repoName, defaultBranch, "kyku.yaml", []byte(configV2))
	h.pr(3, headB)
	h.deliver("pull_request", prOpened(t, 3, headB))
	h.settle()
	h.gh.AddReview(repoName, 3, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headB})
	h.gh.SetFile(repoName, defaultBranch, botPolicyFile, []byte("package kyku\n"))
	h.gh.UpdatePullRequest(repoName, 3, func(p *githubtest.PullRequest) { p.State, p.Merged = "closed", true })
	h.gh.SetCommitPulls(repoName, mergeSHA, 3)
	h.deliver("pull_request", prMerged(t, 3, headB))
	h.settle()
	h.wantConversation(3, "policy-judges-the-merge", headB) // by the base commit's policy: Vm big is large
	if c := h.cloudObjects(); len(c) != 2 {
		t.Errorf("the merge applied a denied plan: %v", c)
	}
}

// TestPolicyWarningAndBrokenPolicyThroughTheBot: a warning alone passes
// the check and does not block /kyku apply; a policy that does not parse
// fails the check with its file and line.
func TestPolicyWarningAndBrokenPolicyThroughTheBot(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.gh.SetFile(repoName, headA, "kyku.yaml", []byte(configV1+"  worker:\n    type: Vm\n    properties: { image: debian-12 }\n"))
	h.gh.SetFile(repoName, defaultBranch, botPolicyFile, []byte(botSizePolicy))
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	checks := h.policyChecks(headA)
	if len(checks) != 1 || checks[0].Conclusion != "success" || checks[0].Title != "Policies passed, 1 warning" {
		t.Fatalf("policy check runs %+v", checks)
	}
	h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})
	h.deliver("issue_comment", commentOn(t, 2, "reviewer", "User", "/kyku apply", 801))
	h.settle()
	if c := h.cloudObjects(); len(c) != 2 {
		t.Fatalf("a warning blocked the apply: cloud %v; reply:\n%s", c, h.lastBotComment(2))
	}

	h.gh.SetFile(repoName, defaultBranch, botPolicyFile, []byte("package kyku\n\ndeny contains msg if {\n\tmsg := \n}\n"))
	h.pr(3, headB)
	h.deliver("pull_request", prOpened(t, 3, headB))
	h.settle()
	checks = h.policyChecks(headB)
	if len(checks) != 1 || checks[0].Conclusion != "failure" {
		t.Fatalf("broken policy check runs %+v", checks)
	}
	h.wantConversation(3, "policy-broken", headB) // the policy's file and line
}

// TestMergeAppliesEnvironmentsInPromotionOrder: with promotion [staging,
// prod], the merge applies staging, then prod (listed the other way round
// in the project); a /kyku apply to prod before staging is refused; when
// staging's apply is refused, prod is not applied and the pull request is
// told.
func TestMergeAppliesEnvironmentsInPromotionOrder(t *testing.T) {
	settingsYAML := "apply: both\npromotion: [staging, prod]\nprojects:\n  - config: kyku.yaml\n    environments: [prod, staging]\n"
	t.Run("in order", func(t *testing.T) {
		h := newHarness(t, harnessOpts{})
		h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(settingsYAML))
		h.pr(2, headA)
		h.deliver("pull_request", prOpened(t, 2, headA))
		h.settle()
		h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})
		h.deliver("issue_comment", commentOn(t, 2, "reviewer", "User", "/kyku apply -e prod", 901))
		h.settle()
		h.wantConversation(2, "promotion-prod-before-staging", headA)
		if recs := h.audits(); len(recs) != 0 {
			t.Fatalf("applied: %+v", recs)
		}
		h.gh.UpdatePullRequest(repoName, 2, func(p *githubtest.PullRequest) { p.State, p.Merged = "closed", true })
		h.gh.SetCommitPulls(repoName, mergeSHA, 2)
		h.deliver("pull_request", prMerged(t, 2, headA))
		h.settle()
		var envs []string
		for _, r := range h.audits() {
			envs = append(envs, r.Environment+"/"+string(r.Trigger))
		}
		if strings.Join(envs, ",") != "staging/merge,prod/merge" {
			t.Errorf("applied %v, want staging then prod", envs)
		}
	})
	t.Run("stops at the first environment not applied", func(t *testing.T) {
		h := newHarness(t, harnessOpts{})
		h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(settingsYAML))
		h.pr(2, headA)
		h.deliver("pull_request", prOpened(t, 2, headA))
		h.settle()
		h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})
		// staging's saved plan is lost: its apply is refused.
		_ = filepath.WalkDir(h.stateDir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.Contains(filepath.ToSlash(p), "/plans/staging/") {
				return os.Remove(p)
			}
			return err
		})
		h.gh.UpdatePullRequest(repoName, 2, func(p *githubtest.PullRequest) { p.State, p.Merged = "closed", true })
		h.gh.SetCommitPulls(repoName, mergeSHA, 2)
		h.deliver("pull_request", prMerged(t, 2, headA))
		h.settle()
		if recs := h.audits(); len(recs) != 0 {
			t.Errorf("applied %+v after staging was refused", recs)
		}
		h.wantConversation(2, "promotion-stopped", headA)
	})
}
