package render

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/kyku/action/internal/plan"
)

func dependsOn(c plan.Change, deps ...string) plan.Change {
	c.Dependencies = deps
	return c
}

// smallGraphPlan: a web tier changes on top of an unchanged network; an
// unrelated unchanged resource is left out of the picture.
func smallGraphPlan() *plan.Plan {
	return newPlan("prod",
		change(plan.NoOp, "Vpc", "net", 0),
		change(plan.NoOp, "SshKey", "ops-key", 0),
		dependsOn(change(plan.NoOp, "Subnet", "net-a", 1), "net"),
		dependsOn(change(plan.Create, "SecurityGroup", "web-sg", 1, prop("network", nil, "vpc-1")), "net"),
		dependsOn(change(plan.Replace, "Vm", "web", 2), "net-a", "web-sg"),
		dependsOn(change(plan.Update, "Database", "db", 2, prop("size", "small", "medium")), "net-a"),
		dependsOn(change(plan.Create, "LoadBalancer", "web-lb", 3), "web", "net"),
		dependsOn(change(plan.Destroy, "Vm", "old-worker", 2), "net-a"),
	)
}

// largeGraphPlan: 300 resources in 3 tiers, past PictureGroupAt.
func largeGraphPlan() *plan.Plan {
	cs := []plan.Change{change(plan.NoOp, "Vpc", "net", 0)}
	for i := range 100 {
		cs = append(cs, dependsOn(change(plan.NoOp, "Subnet", fmt.Sprintf("sub-%03d", i), 1), "net"))
	}
	for i := range 150 {
		a := plan.Create
		if i%10 == 0 {
			a = plan.Update
		}
		cs = append(cs, dependsOn(change(a, "Vm", fmt.Sprintf("vm-%03d", i), 2), fmt.Sprintf("sub-%03d", i%100)))
	}
	for i := range 49 {
		a := plan.Create
		if i%7 == 0 {
			a = plan.Destroy
		}
		cs = append(cs, dependsOn(change(a, "LoadBalancer", fmt.Sprintf("lb-%03d", i), 3), fmt.Sprintf("vm-%03d", i), "net"))
	}
	return newPlan("prod", cs...)
}

func TestPictureGolden(t *testing.T) {
	golden(t, "picture_small.mmd.golden", PlanMermaid(smallGraphPlan()))
	golden(t, "picture_large.mmd.golden", PlanMermaid(largeGraphPlan()))
	golden(t, "picture_small.md.golden", pictureSection(smallGraphPlan()))
	golden(t, "picture_large.md.golden", pictureSection(largeGraphPlan()))
}

func TestPictureShape(t *testing.T) {
	small := PlanMermaid(smallGraphPlan())
	for _, want := range []string{
		`["✓ net (Vpc)"]`, `["✓ net-a (Subnet)"]`, // unchanged dependencies, faded
		`["± web (Vm)"]`, `["- old-worker (Vm)"]`,
		"classDef unchanged fill:#f6f8fa",
	} {
		if !strings.Contains(small, want) {
			t.Errorf("small picture lacks %q:\n%s", want, small)
		}
	}
	if strings.Contains(small, "ops-key") {
		t.Errorf("an unchanged resource nothing changed depends on is shown:\n%s", small)
	}
	if sec := pictureSection(smallGraphPlan()); strings.Contains(sec, "<details>") {
		t.Errorf("a small picture is folded:\n%s", sec)
	}
	large := pictureSection(largeGraphPlan())
	if !strings.HasPrefix(large, "<details><summary>Picture of the change (") || !strings.Contains(large, "× 150") && !strings.Contains(large, "Vm × 135") {
		t.Errorf("large picture is not folded and grouped:\n%s", large)
	}
	if got := PlanMermaid(newPlan("prod", change(plan.NoOp, "Vm", "web", 0))); got != "" {
		t.Errorf("a plan without changes has a picture:\n%s", got)
	}
}

// TestPictureEscaping: resource names come from pull requests. None can
// end its label, add a Mermaid statement (click handler, link, style),
// or close the ```mermaid block.
func TestPictureEscaping(t *testing.T) {
	evil := []string{
		"a\"] --> b\nclick n0 \"javascript:alert(1)\"",
		"x\n```\n<img src=x onerror=alert(1)>",
		"y]:::create\nstyle n0 fill:#f00",
		"z`%%{init: {\"securityLevel\":\"loose\"}}%%",
		"@admin <b>bold</b> &amp; #quot;",
	}
	var cs []plan.Change
	for _, n := range evil {
		cs = append(cs, change(plan.Create, "Vm\"]\nclick", n, 1))
	}
	got := PlanMermaid(newPlan("prod", cs...))
	line := regexp.MustCompile(`^  (n\d+\["[A-Za-z0-9 _.\-/()…+~±✓×\[\]']*"\]|n\d+ --> n\d+|classDef [a-z]+ [a-z0-9:#,\-]+|class [n0-9,]+ [a-z]+)$`)
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n")[1:] {
		if !line.MatchString(l) {
			t.Errorf("line %q is not a safe node, edge or class line", l)
		}
	}
	if strings.Contains(got, "`") || strings.Contains(got, "click") && !strings.Contains(got, "_click") {
		t.Errorf("picture carries a backtick or a click statement:\n%s", got)
	}
	sec := pictureSection(newPlan("prod", cs...))
	if strings.Count(sec, "```") != 2 {
		t.Errorf("the mermaid block can be closed early:\n%s", sec)
	}
}

func TestPolicySection(t *testing.T) {
	p := smallGraphPlan()
	m := meta()
	m.Policy = &PolicyReport{
		Deny:  []string{"Database \"db\" in prod: no <b>resize</b> @everyone", "second"},
		Warn:  []string{"Vm sizes: medium is large-ish"},
		Files: []string{".kyku/policies/db.rego", ".kyku/policies/sizes.rego"},
		Ref:   "main",
	}
	got := PlanComment(p, m, CommentLimit)
	golden(t, "comment_policy_denied.md.golden", got)
	if strings.Index(got, "Policies deny this plan") > strings.Index(got, "#### ⚠ Destroys and replaces") {
		t.Error("the policy section is not before the changes")
	}
	m.Policy = &PolicyReport{Error: ".kyku/policies/db.rego:4:7: rego_parse_error: unexpected } token\n```\nbreakout", Files: []string{".kyku/policies/db.rego"}, Ref: "main"}
	title, summary := PolicyCheck(*m.Policy, m)
	golden(t, "policy_check_error.md.golden", title+"\n\n"+summary)
	if strings.Count(summary, "````") != 2 {
		t.Errorf("the error's backticks can close its block:\n%s", summary)
	}
	m.Policy = &PolicyReport{Files: []string{".kyku/policies/db.rego"}, Ref: "main"}
	if got := PlanComment(p, m, CommentLimit); !strings.Contains(got, "✓ Policies passed: 1 policy file from `main`.") {
		t.Errorf("a passing check is not one line:\n%s", got)
	}
}
