package review_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/policy"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/review"
)

// TestPolicyOverrideNeedsAnApprovalThatCounts: the author being a policy
// owner does not let them override their own denied plan; a writer who is
// no owner does not either; a member of the owners' team whose membership
// Kyku cannot read counts no one (fail closed); once it can, their
// approval overrides and the audit record says so.
func TestPolicyOverrideNeedsAnApprovalThatCounts(t *testing.T) {
	f := newFixture(t)
	f.deps.Policies = func(context.Context) (*policy.Set, error) {
		return &policy.Set{Ref: "main", Modules: []policy.Module{{Name: ".kyku/policies/freeze.rego", Data: []byte(
			"package kyku\n\ndeny contains \"change freeze\" if count(input.changes) > 0\n")}}}, nil
	}
	f.settings.PolicyOwners = []string{"author", "acme/owners"}
	f.settings.RequireApproval = true
	f.srv.SetPermission(repoName, "author", "write")
	f.srv.SetPermission(repoName, "reviewer", "write")
	f.srv.SetPermission(repoName, "lead", "write")
	f.srv.AddTeamMember("acme", "owners", "lead")
	f.srv.SetTeamReaders("nobody")
	f.addPR(1, headB)
	out := f.plan(1, headB)
	if out.Policy == nil || !out.Policy.Blocks() {
		t.Fatalf("plan's policy report %+v", out.Policy)
	}
	if c, ok := out.PolicyCheck(f.settings, render.Meta{}); !ok || c.Conclusion != github.CheckFailure || c.Title != "1 denial" || c.Name != "kyku policy (prod)" || c.Status != github.CheckCompleted {
		t.Errorf("policy check %+v %v", c, ok)
	}
	apply := func(who string) *review.ApplyOutcome {
		t.Helper()
		res, err := review.Comment(t.Context(), f.deps, f.settings, f.comment(1, who, "/kyku apply"))
		if err != nil {
			t.Fatal(err)
		}
		return res.Apply
	}
	f.srv.AddReview(repoName, 1, githubtest.Review{User: "author", State: "APPROVED", CommitID: headB})
	f.srv.AddReview(repoName, 1, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headB})
	if a := apply("reviewer"); a.Applied || !strings.Contains(a.Refused.String(), "The policies deny this plan") || !strings.Contains(a.Refused.String(), "`author` (is the author)") {
		t.Fatalf("author-owner and a non-owner: %+v", a)
	}
	f.srv.AddReview(repoName, 1, githubtest.Review{User: "lead", State: "APPROVED", CommitID: headB})
	if a := apply("reviewer"); a.Applied {
		t.Fatalf("a team owner Kyku cannot see overrode: %+v", a)
	}
	f.srv.SetTeamReaders(githubtest.TokenUser)
	a := apply("reviewer")
	if !a.Applied || strings.Join(a.PolicyOverriddenBy, ",") != "lead" {
		t.Fatalf("team owner's approval: %+v", a)
	}
	recs := f.audits()
	if p := recs[len(recs)-1].Policy; p == nil || strings.Join(p.OverriddenBy, ",") != "lead" || strings.Join(p.Denied, ",") != "change freeze" {
		t.Errorf("audit policy %+v", p)
	}
}

func TestSettingsCheckOwnersAndPromotion(t *testing.T) {
	f := newFixture(t)
	for _, s := range []review.Settings{
		{PolicyOwners: []string{"not a login"}},
		{Promotion: []string{"staging", "staging"}},
		{Promotion: []string{"../prod"}},
	} {
		if _, err := review.Plan(t.Context(), f.deps, review.PlanRequest{Settings: s, Config: parse(t, configV1)}); err == nil {
			t.Errorf("settings %+v accepted", s)
		}
	}
}

func TestPromotionOrder(t *testing.T) {
	got := review.PromotionOrder([]string{"dev", "staging", "prod"}, []string{"prod", "qa", "dev", "staging"})
	if strings.Join(got, ",") != "dev,staging,prod,qa" {
		t.Errorf("order %v", got)
	}
}
