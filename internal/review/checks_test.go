package review

import (
	"errors"
	"testing"

	"github.com/kyku/action/internal/golden"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/render"
)

var checkText = golden.CheckRunOf

// TestChecksGolden: every check run of a plan the bot shows, and the
// policy check both front doors show: testdata/checks.md.
func TestChecksGolden(t *testing.T) {
	var doc golden.Sections
	const name = "kyku plan (net/prod)"
	s := goldenSettings()
	doc.Add(t, "planning", checkText(PlanningCheck(name)))
	doc.Add(t, "planning again", checkText(PlanningAgainCheck(name)))
	changes := &plan.Plan{Environment: "prod", Changes: []plan.Change{
		{Action: plan.Create, ResourceID: "web", Type: "Vm"}, {Action: plan.Move, ResourceID: "db", Type: "Vm"},
		{Action: plan.Import, ResourceID: "net", Type: "Vpc"}, {Action: plan.Destroy, ResourceID: "old", Type: "Vm"},
	}}
	changes.Count()
	none := &plan.Plan{Environment: "prod"}
	none.Count()
	doc.Add(t, "planned", checkText((&PlanOutcome{Plan: changes, Summary: "### Kyku plan for `prod`\n\n(the job summary)\n"}).PlanCheck(name)))
	doc.Add(t, "planned, no changes", checkText((&PlanOutcome{Plan: none}).PlanCheck(name)))
	doc.Add(t, "planned, no plan", checkText((&PlanOutcome{}).PlanCheck(name)))
	detail := "kyku.yaml:3:5: unknown property \"sise\" in resource `web` (did you mean size?)\n```\n@octocat"
	for _, tc := range []struct {
		name string
		why  PlanFailure
	}{{"source unreadable", SourceUnreadable}, {"configuration errors", ConfigInvalid}, {"no trusted configuration", NoTrustedConfig}, {"plan failed", PlanFailed}} {
		doc.Add(t, "failed: "+tc.name, checkText(PlanFailedCheck(name, tc.why, detail, "main")))
	}
	doc.Add(t, "a fork", checkText(ForkCheck(s, 7, "mallory/infra")))
	allow := s
	allow.AllowForkPRs = true
	doc.Add(t, "a fork, planned on request", checkText(ForkCheck(allow, 7, "mallory/infra")))
	m := render.Meta{CommitSHA: goldenHead, RunURL: goldenRun}
	for _, tc := range []struct {
		name string
		rep  render.PolicyReport
	}{
		{"policies passed, with a warning", render.PolicyReport{Files: []string{".kyku/policies/size.rego"}, Warn: []string{"Vm `web` has no owner tag"}, Ref: "main"}},
		{"policies deny", render.PolicyReport{Files: []string{".kyku/policies/size.rego"}, Deny: []string{"Vm `web`: size xlarge is not allowed"}, Ref: "main"}},
		{"policies cannot be evaluated", render.PolicyReport{Files: []string{".kyku/policies/size.rego"}, Error: errors.New(".kyku/policies/size.rego:3:1: rego_parse_error").Error()}},
	} {
		rep := tc.rep
		c, ok := (&PlanOutcome{Policy: &rep}).PolicyCheck(s, m)
		if !ok {
			t.Fatalf("%s: no policy check", tc.name)
		}
		doc.Add(t, tc.name, checkText(c))
	}
	if _, ok := (&PlanOutcome{}).PolicyCheck(s, m); ok {
		t.Error("a plan without policies has a policy check")
	}
	golden.Check(t, "checks.md", doc.String())
}
