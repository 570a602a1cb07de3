package review_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/review"
)

const headEmpty = "eeeeeee5555555555555555555555555555555ee"

// emptied is a fixture whose PR #1 (configV1) was applied, and whose PR #2
// empties the configuration (headEmpty), planned: the plan destroys
// everything in the environment.
func emptied(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	f.srv.SetPermission(repoName, "alice", "write")
	f.sources[headEmpty] = "resources: {}\n"
	f.addPR(1, headA)
	f.plan(1, headA)
	if out, err := review.Apply(t.Context(), f.deps, review.ApplyRequest{Settings: f.settings, Number: 1, Commenter: "alice"}); err != nil || !out.Applied {
		t.Fatalf("apply #1: %v %+v", err, out)
	}
	f.addPR(2, headEmpty)
	out := f.plan(2, headEmpty)
	if !out.Plan.DestroysAll() {
		t.Fatalf("the plan of an empty configuration: %+v", out.Plan.Counters)
	}
	return f
}

// TestDestroyAllPlanLeadsWithAWarning: the plan comment of a pull request
// that empties the configuration starts, right under its title, with a
// warning naming the explicit word, and does not offer the merge.
func TestDestroyAllPlanLeadsWithAWarning(t *testing.T) {
	f := emptied(t)
	var body string
	for _, c := range f.srv.Comments(repoName, 2) {
		if strings.Contains(c.Body, "kyku:plan") {
			body = c.Body
		}
	}
	_, rest, _ := strings.Cut(body, "### Kyku plan for `prod`\n\n")
	if !strings.HasPrefix(rest, "> [!WARNING]\n> **This plan destroys every resource in `prod`** (1 resource)") {
		t.Errorf("the plan comment does not lead with the warning:\n%s", body)
	}
	contains(t, "plan comment", body, "`/kyku apply -e prod --allow-destroy-all`", "merging the pull request does not apply it")
	if strings.Contains(body, "merge the pull request or comment") {
		t.Errorf("the plan comment offers the merge:\n%s", body)
	}
}

// TestDestroyAllApplyNeedsTheWord: `/kyku apply` of that plan is refused,
// changing nothing, and says which word applies it; a merge never applies
// it; `/kyku apply --allow-destroy-all` does.
func TestDestroyAllApplyNeedsTheWord(t *testing.T) {
	f := emptied(t)
	serial, cloud := f.serial(), f.cloud()
	unchanged := func(what string) {
		t.Helper()
		if f.serial() != serial || len(f.cloud()) != len(cloud) {
			t.Errorf("%s changed something: serial %d→%d, cloud %v→%v", what, serial, f.serial(), cloud, f.cloud())
		}
	}
	out, err := review.Comment(t.Context(), f.deps, f.settings, f.comment(2, "alice", "/kyku apply"))
	if err != nil || out.Apply == nil || out.Apply.Applied {
		t.Fatalf("/kyku apply: %v %+v", err, out)
	}
	contains(t, "refusal", out.Apply.Refused.String(), "destroys every resource in `prod` (1 resource)", "comment `/kyku apply -e prod --allow-destroy-all`")
	unchanged("the refused apply")

	// The word on another command, or misspelt, is an error, not a yes.
	out, err = review.Comment(t.Context(), f.deps, f.settings, f.comment(2, "alice", "/kyku apply --allow-destroy"))
	if err != nil || out.Apply != nil {
		t.Fatalf("/kyku apply --allow-destroy: %v %+v", err, out)
	}
	unchanged("a misspelt word")

	f.merge(2)
	mo, err := review.ApplyMerged(t.Context(), f.deps, f.settings, mergeSHA, "merger")
	if err != nil || mo.Applied {
		t.Fatalf("merge: %v %+v", err, mo)
	}
	contains(t, "merge refusal", mo.Refused.String(), "A merge never applies such a plan", "`kyku destroy`")
	unchanged("the merge")
}

// TestDestroyAllAppliedWithTheWord: with the word, from someone who may
// apply, the plan is applied: everything is destroyed.
func TestDestroyAllAppliedWithTheWord(t *testing.T) {
	f := emptied(t)
	out, err := review.Comment(t.Context(), f.deps, f.settings, f.comment(2, "alice", "/kyku apply --allow-destroy-all"))
	if err != nil || out.Apply == nil || !out.Apply.Applied {
		t.Fatalf("/kyku apply --allow-destroy-all: %v %+v", err, out)
	}
	if out.Command != "/kyku apply --allow-destroy-all" {
		t.Errorf("command %q", out.Command)
	}
	if len(f.cloud()) != 0 || len(f.state().Resources) != 0 {
		t.Errorf("after the apply: cloud %v, state %v", f.cloud(), f.state().Resources)
	}
}
