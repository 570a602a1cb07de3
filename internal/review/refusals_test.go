package review

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/command"
	"github.com/kyku/action/internal/golden"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/render"
)

const (
	goldenHead  = "a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0"
	goldenMerge = "f0e1d2c3b4a5f0e1d2c3b4a5f0e1d2c3b4a5f0e1"
	goldenRun   = "https://github.example/acme/infra/actions/runs/42"
)

// goldenSettings are the settings every text below is rendered with:
// an environment, a project, an approval rule and an owner, so that each
// text shows what it names.
func goldenSettings() Settings {
	s, err := Settings{
		Project: "net", Environment: "prod", RequireApproval: true, RequiredApprovals: 2,
		PolicyOwners: []string{"lead", "acme/owners"}, Promotion: []string{"staging", "prod"},
		RulesFrom: "`.kyku/config.yaml` on the default branch",
	}.withDefaults()
	if err != nil {
		panic(err)
	}
	return s
}

func goldenRequest(t Trigger) request {
	return request{s: goldenSettings(), number: 7, head: goldenHead, trigger: t, merge: goldenMerge}
}

var goldenTriggers = []Trigger{TriggerComment, TriggerMerge, TriggerMergeQueue}

// TestRefusalsGolden: what Kyku answers for every requirement a request
// can fail, as the reply on the pull request shows it (marker, heading,
// the refusal, "Nothing was applied", the footer). One section per text
// and variant: testdata/refusals.md.
func TestRefusalsGolden(t *testing.T) {
	var doc golden.Sections
	s := goldenSettings()
	add := func(name string, r *Refusal) {
		t.Helper()
		if r == nil || r.Message == "" {
			t.Fatalf("%s: no refusal", name)
		}
		doc.Add(t, name+" ("+r.Requirement.String()+")", refusedReply(s, r, goldenHead, goldenRun))
	}

	for _, m := range ApplyModes {
		for _, tr := range goldenTriggers {
			if r := ApplyModeRefusal(Settings{Apply: m, RulesFrom: "the workflow's inputs"}, tr); r != nil {
				add(fmt.Sprintf("apply: %s, asked by %s", m, tr), r)
			} else if m.applies(tr) != (r == nil) {
				t.Errorf("apply: %s, %s: refused %v", m, tr, r)
			}
		}
	}
	add("a direct push", refusal(RequireMergedPR, directPushText(goldenMerge)))
	add("a merge group branch naming no pull request", refusal(RequireMergeGroup, queueBranchText("refs/heads/gh-readonly-queue/main/not-a-pr")))
	add("a merge group branch into another base", refusal(RequireMergeGroup, queueBaseText("refs/heads/gh-readonly-queue/main/pr-7-"+goldenMerge, "release")))
	add("a merge group for a pull request on another base", refusal(RequireMergeGroup, queuePRBaseText(7, "release", "main")))
	for _, tc := range mergeRuleCases {
		if tc.refused {
			r, err := checkMergeCase(t, tc.m, tc.base, &tc.files)
			if err != nil {
				t.Fatal(err)
			}
			add("merge rules: "+tc.name, r)
		}
	}
	for _, tc := range []struct {
		name string
		r    *Refusal
	}{
		{"not merged", refusal(RequirePullRequest, notMergedText(7))},
		{"already merged", refusal(RequirePullRequest, alreadyMergedText(7))},
		{"closed", refusal(RequirePullRequest, closedText(7, s))},
		{"from a fork", refusal(RequirePullRequest, forkText(7, "mallory/infra"))},
		{"head moved after the comment", refusal(RequireSeenHead, headMovedText(7, goldenMerge, goldenHead, s))},
		{"head reached GitHub after the comment", refusal(RequireSeenHead, pushedAfterText(7, goldenHead, time.Date(2026, 12, 7, 12, 0, 4, 0, time.UTC), time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC), s))},
		{"branch pushed to after the comment", refusal(RequireSeenHead, branchPushedAfterText(7, "change-7", goldenHead, time.Date(2026, 12, 7, 12, 0, 4, 0, time.UTC), time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC), s))},
		{"branch force-pushed after the comment", refusal(RequireSeenHead, forcePushedAfterText(7, goldenHead, time.Date(2026, 12, 7, 12, 0, 4, 0, time.UTC), time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC), s))},
		{"a fork whose pushes cannot be read", refusal(RequireSeenHead, forkPushesUnreadText(7, "mallory/infra", "change-7"))},
		{"not open, in the merge queue", refusal(RequirePullRequest, queueNotOpenText(7))},
		{"not open, for a plan", refusal(RequirePullRequest, planNotOpenText(7, "closed"))},
		{"from a fork, for a plan", refusal(RequirePullRequest, ForkNotPlanned(7, "mallory/infra"))},
		{"from a deleted fork, for a plan", refusal(RequirePullRequest, ForkNotPlanned(7, ""))},
		{"from a fork, planned on request", refusal(RequirePullRequest, ForkPlannedOnRequest(7, "mallory/infra", s))},
		{"permission to plan", refusal(RequirePermission, permissionText("rita", "read", "plan", s))},
		{"permission to apply", refusal(RequirePermission, permissionText("rita", "triage", "apply", s))},
		{"no trusted configuration", refusal(RequireTrustedConfig, noTrustedConfigText)},
		{"promotion", refusal(RequirePromotion, promotionText(goldenRequest(TriggerComment), "staging", " (no result of Kyku's for it on this pull request)"))},
		{"state moved on during the apply", refusal(RequireCurrentState, staleText(goldenRequest(TriggerComment), "stale plan: state serial is 8, plan was for 7"))},
	} {
		add(tc.name, tc.r)
	}
	ap := approvals{counted: []string{"carol"}, notCounted: []NotCounted{
		{"author", whyAuthor}, {"bob", whyEarlierCommit("c0ffee0000000000000000000000000000000000")}, {"dependabot[bot]", whyBot},
		{"dave", whyChangesRequested}, {"erin", whyDismissed}, {"frank", whyPusher}, {"rita", whyPermission("read", "write")},
		{"gina", whyTooManyCommits(250)},
	}}
	for _, tr := range goldenTriggers {
		add("approvals, asked by "+string(tr), refusal(RequireApprovals, noApprovalText(goldenRequest(tr), ap)))
		add("approvals, none, asked by "+string(tr), refusal(RequireApprovals, noApprovalText(goldenRequest(tr), approvals{})))
		add("no saved plan, asked by "+string(tr), refusal(RequireSavedPlan, noPlanText(goldenRequest(tr))))
		add("destroys everything, asked by "+string(tr), refusal(RequireDestroyAll, destroyAllText(goldenRequest(tr), 3)))
	}
	doc.Add(t, "permission not checked, apply", CommandUnchecked(command.Apply, "rita"))
	doc.Add(t, "permission not checked, plan", CommandUnchecked(command.Plan, "rita"))
	doc.Add(t, "when the head reached GitHub not checked", HeadUnchecked(goldenHead))
	edited := time.Date(2026, 12, 6, 8, 25, 20, 0, time.UTC)
	for _, tc := range []struct {
		name string
		f    commentFacts
	}{
		{"no record of the comment", commentFacts{why: commentNotRecorded}},
		{"a record Kyku did not write", commentFacts{why: commentBadRecord, key: "net/plans/prod/pr-7-" + goldenHead + ".comment.json"}},
		{"another comment than the one posted", commentFacts{why: commentNotPosted, id: 1009, ofRec: 1007}},
		{"the comment edited, by whom and when", commentFacts{why: commentEdited, url: "https://github.example/acme/infra/pull/7#issuecomment-1007", editor: "mallory", at: edited}},
		{"the comment edited, by someone", commentFacts{why: commentEdited, url: "javascript:alert(1)"}},
	} {
		r := goldenRequest(TriggerComment)
		add(tc.name, refusal(RequireReviewedPlan, commentText(r, tc.f)+" "+r.replan()))
	}
	digest, saved := strings.Repeat("d", 64), strings.Repeat("5", 64)
	for _, tc := range []struct {
		name string
		t    Trigger
		f    mismatchFacts
	}{
		{"the saved plan cannot be used", TriggerComment, mismatchFacts{why: savedUnusable, detail: "plans/prod/pr-7-a1b2.json: unknown format version 9"}},
		{"the queue's commit holds another configuration", TriggerMergeQueue, mismatchFacts{why: queueConfig}},
		{"the saved plan was altered", TriggerMerge, mismatchFacts{why: savedAltered}},
		{"the saved plan predates the state", TriggerComment, mismatchFacts{why: savedStale, moved: movedText(false, true, "", "l-1", 0, 1), digest: digest, savedDigest: saved}},
		{"the state was replaced", TriggerComment, mismatchFacts{why: savedStale, moved: movedText(true, true, "l-1", "l-2", 3, 1), digest: digest, savedDigest: saved}},
		{"the state serial moved on", TriggerMerge, mismatchFacts{why: savedStale, moved: movedText(true, true, "l-1", "l-1", 3, 4), digest: digest, savedDigest: saved}},
		{"the cloud changed", TriggerComment, mismatchFacts{why: savedDiffers, digest: digest, savedDigest: saved}},
		{"the plan comment is missing", TriggerComment, mismatchFacts{why: shownMissing}},
		{"the plan comment shows no plan", TriggerComment, mismatchFacts{why: shownNoPlan}},
		{"the plan comment is for another head", TriggerComment, mismatchFacts{why: shownOtherHead, shownHead: "b2b2b2b2b2"}},
		{"the plan comment shows another plan", TriggerComment, mismatchFacts{why: shownOtherPlan, shown: saved, digest: digest}},
	} {
		r := goldenRequest(tc.t)
		add(tc.name+", asked by "+string(tc.t), refusal(RequireReviewedPlan, mismatchText(r, tc.f)+" "+r.replan()))
	}
	var many []string
	for i := range 22 {
		many = append(many, fmt.Sprintf("Vm web-%d: size xlarge is not allowed", i))
	}
	r := goldenRequest(TriggerComment)
	add("policies deny", refusal(RequirePolicy, policyText(r, policyBlock{deny: []string{"Vm `web`: no public IP"}}, ap)))
	add("policies deny, more than listed", refusal(RequirePolicy, policyText(r, policyBlock{deny: many, more: 3}, ap)))
	add("policies deny, some beyond the report", refusal(RequirePolicy, policyText(r, policyBlock{deny: many[:2], more: 5}, ap)))
	r.s.PolicyOwners = nil
	add("policies cannot be evaluated, no owners", refusal(RequirePolicy, policyText(r, policyBlock{err: ".kyku/policies/size.rego:3:1: rego_parse_error: unexpected eof"}, ap)))
	golden.Check(t, "refusals.md", doc.String())
}

// TestRepliesGolden: the other replies review writes on a pull request:
// an apply refused with the fresh plan shown, an apply an error stopped,
// a command refused before it ran, a command that cannot be read, a plan
// that failed. testdata/replies.md.
func TestRepliesGolden(t *testing.T) {
	var doc golden.Sections
	s := goldenSettings()
	fresh := &plan.Plan{Environment: "prod", Changes: []plan.Change{{Action: plan.Create, ResourceID: "web", Type: "Vm",
		Properties: []plan.PropChange{{Path: "image", New: "debian-12"}}}}}
	fresh.Count()
	r := goldenRequest(TriggerComment)
	mm := refusal(RequireReviewedPlan, mismatchText(r, mismatchFacts{why: savedDiffers, digest: strings.Repeat("d", 64), savedDigest: strings.Repeat("5", 64)})+" "+r.replan())
	m := render.Meta{CommitSHA: goldenHead, Digest: strings.Repeat("d", 64), RunURL: goldenRun, Environment: s.Environment, Project: s.Project}
	doc.Add(t, "apply refused, the fresh plan shown", refusedWithPlanReply(s, mm, fresh, m))
	boom := errors.New("open workspace prod: s3: AccessDenied on `state/prod.json`\n```\n@octocat")
	for _, tr := range goldenTriggers {
		doc.Add(t, "apply failed, asked by "+string(tr), applyFailedReply(goldenRequest(tr), boom, goldenHead, goldenRun))
	}
	doc.Add(t, "command refused", CommandRefused("/kyku apply -e prod -p net", ApplyModeRefusal(Settings{Apply: ApplyOnMerge, RulesFrom: "the workflow's inputs"}, TriggerComment)))
	doc.Add(t, "command unreadable", commandErrorReply("unknown flag --yolo", goldenRun))
	doc.Add(t, "plan failed", failedPlanBody(s, goldenHead, goldenRun, boom, nil))
	doc.Add(t, "apply notes: an error after the changes, no audit record", applyNotes(errors.New("save state: `s3` 503"), true, nil))
	doc.Add(t, "apply notes: a policy override", applyNotes(nil, false, []string{"lead", "acme/owners"}))
	doc.Add(t, "plan failed, no commit", failedPlanBody(s, "", "", boom, nil))
	golden.Check(t, "replies.md", doc.String())
}

// TestEveryRequirementIsNamed: each requirement has a name of its own
// (audit, logs and the golden file's headings read them).
func TestEveryRequirementIsNamed(t *testing.T) {
	seen := map[string]Requirement{}
	for r := RequireApplyMode; r <= RequireCurrentState; r++ {
		n := r.String()
		if n == "unknown" || seen[n] != 0 {
			t.Errorf("requirement %d is named %q (also %d)", r, n, seen[n])
		}
		seen[n] = r
	}
	if (*Refusal)(nil).String() != "" {
		t.Error("no refusal reads as text")
	}
}

// TestDriftCommentsGolden: the comments Kyku adds to a drift issue (the
// issue itself is render's: drift_issue.md.golden): new drift, drift from
// an issue without a record, drift partly gone, more than listed, an
// issue someone edited. testdata/drift-comments.md.
func TestDriftCommentsGolden(t *testing.T) {
	var doc golden.Sections
	m := render.Meta{RunURL: goldenRun, Environment: "prod", Project: "net"}
	var many []string
	for i := range 52 {
		many = append(many, fmt.Sprintf("`Vm web-%02d`: `size`", i))
	}
	doc.Add(t, "new drift", driftNewsComment([]string{"`Vm web`: `image`", "`Vpc main` (gone)"}, 0, false, m))
	doc.Add(t, "new drift, some gone", driftNewsComment([]string{"`Vm web`: `image`"}, 2, false, m))
	doc.Add(t, "only gone", driftNewsComment(nil, 1, false, render.Meta{Environment: ""}))
	doc.Add(t, "no record of what the issue showed", driftNewsComment(nil, 0, true, m))
	doc.Add(t, "more new drift than listed", driftNewsComment(many, 0, false, m))
	doc.Add(t, "the issue edited", driftEditedComment(m))
	golden.Check(t, "drift-comments.md", doc.String())
}
