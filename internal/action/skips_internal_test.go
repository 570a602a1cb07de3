package action

import (
	"testing"

	"github.com/kyku/action/internal/golden"
	"github.com/kyku/action/internal/review"
)

// TestSkipsGolden: every reason a run does nothing, as its job summary
// says it, and what a cancelled merge's run leaves on the pull request and
// in the log: testdata/skips.md.
func TestSkipsGolden(t *testing.T) {
	var doc golden.Sections
	s := review.Settings{Environment: "prod", RulesFrom: "the workflow's inputs"}
	for _, tc := range []struct {
		name string
		sk   skipped
	}{
		{"a pull request from a fork", forkSkip(7, "mallory/infra")},
		{"a pull request by Dependabot", dependabotSkip(7)},
		{"an event that does not trigger Kyku", eventSkip("release")},
		{"a review requested on a pull request", pullRequestActionSkip(7, "review_requested")},
		{"a dispatch for a fork's pull request", dispatchedForkSkip(7, "mallory/infra")},
		{"a dispatch for a closed pull request", dispatchedStateSkip(7, "closed")},
		{"a comment ignored", ignoredSkip("comment", "no /kyku command")},
		{"a dispatched command ignored", ignoredSkip("dispatched command", `for environment "staging", not "prod"`)},
		{"a push to another branch", pushSkip("refs/heads/release", "main")},
		{"a merge with apply: comment", applyModeSkip(nothingToDo, review.ApplyModeRefusal(withApply(s, review.ApplyOnComment), review.TriggerMerge))},
		{"a merge with apply: merge-queue", applyModeSkip(nothingToDo, review.ApplyModeRefusal(withApply(s, review.ApplyInMergeQueue), review.TriggerMerge))},
		{"/kyku apply with apply: merge", applyModeSkip(didNotApply, review.ApplyModeRefusal(withApply(s, review.ApplyOnMerge), review.TriggerComment))},
		{"a merge group with apply: both", applyModeSkip(nothingToDo, review.ApplyModeRefusal(withApply(s, review.ApplyOnBoth), review.TriggerMergeQueue))},
		{"a merge group not requesting checks", mergeGroupActionSkip("destroyed")},
		{"a merge group with command plan", mergeGroupPlanSkip},
		{"a merge group into another branch", mergeGroupBaseSkip("release", "main")},
		{"a pull request touching no Terraform root, without kyku.yaml", noProjectSkip(7, "kyku.yaml")},
	} {
		doc.Add(t, tc.name, summarySkipped(tc.sk.title, tc.sk.reason))
	}
	m := cancelledMerge{sha: "f0e1d2c3b4a5f0e1d2c3b4a5f0e1d2c3b4a5f0e1", number: 7, runURL: "https://github.example/acme/infra/actions/runs/42"}
	doc.Add(t, "a cancelled merge, on its pull request", cancelledComment("prod", m))
	doc.Add(t, "a cancelled merge, in the log", cancelledMessage("", m)+"\n")
	golden.Check(t, "skips.md", doc.String())
}

func withApply(s review.Settings, m review.ApplyMode) review.Settings {
	s.Apply = m
	return s
}
