package render

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
)

func applySuccess() ApplyResult {
	return ApplyResult{
		Environment: "prod",
		Succeeded: []ChangeResult{
			{Action: plan.Create, Type: "Vpc", Name: "main-vpc", ProviderID: "1"},
			{Action: plan.Create, Type: "Vm", Name: "web", ProviderID: "2"},
			{Action: plan.Destroy, Type: "Vm", Name: "old-worker", ProviderID: "17"},
		},
		Digest:           meta().Digest,
		SerialBefore:     7,
		SerialAfter:      8,
		BackupKey:        "kyku/backups/prod/state.7.json",
		Outputs:          map[string]any{"webIp": "203.0.113.7", "dbPassword": secret, "ports": []any{80.0, 443.0}},
		SensitiveOutputs: map[string]bool{"dbPassword": true},
		Duration:         3260 * time.Millisecond,
	}
}

func applyFailure() ApplyResult {
	r := applySuccess()
	r.Succeeded = r.Succeeded[:1]
	r.Failed = []ChangeResult{{Action: plan.Create, Type: "Vm", Name: "web", Err: "create Vm web: quota exceeded | limit 5 `vCPU`"}}
	r.Skipped = []ChangeResult{{Action: plan.Create, Type: "LoadBalancer", Name: "web-lb", Err: "dependency web failed"}}
	r.Outputs = nil
	return r
}

func drift() Drift {
	return Drift{
		Environment: "prod",
		CheckedAt:   time.Date(2026, 11, 29, 6, 0, 3, 0, time.UTC),
		Resources: []DriftedResource{
			{Type: "Vm", Name: "web", ProviderID: "2", Properties: []plan.PropChange{
				{Path: "size", Old: "small", New: "large"},
				{Path: "userData", Old: secret, New: secret + "-tampered", Sensitive: true},
				{Path: "tags", Old: map[string]any{"a": "x|y"}, New: map[string]any{}},
			}},
			{Type: "Database", Name: "app-db", ProviderID: "db-9", Gone: true},
		},
	}
}

func TestMarkdownGolden(t *testing.T) {
	m := meta()
	proj := meta()
	proj.Project = "infra/core"
	big := PlanComment(bigPlan(10000), m, CommentLimit)
	rules := meta()
	rules.RulesChanged = []string{".kyku/config.yaml", ".kyku/policies/deny-destroy.rego"}
	tests := []struct {
		file, got string
	}{
		{"comment_small.md.golden", PlanComment(fullPlan(), m, CommentLimit)},
		{"comment_create_before_destroy.md.golden", PlanComment(cbdPlan(), m, CommentLimit)},
		{"comment_project.md.golden", PlanComment(newPlan("staging", change(plan.Create, "Vpc", "v", 0, prop("cidr", nil, "10.0.0.0/16"))), proj, CommentLimit)},
		{"comment_no_changes.md.golden", PlanComment(newPlan("prod", change(plan.NoOp, "Vpc", "main-vpc", 0)), m, CommentLimit)},
		{"comment_rules_changed.md.golden", PlanComment(newPlan("prod", change(plan.Create, "Vpc", "v", 0, prop("cidr", nil, "10.0.0.0/16"))), rules, CommentLimit)},
		{"comment_10000.md.golden", big},
		{"summary_small.md.golden", PlanSummary(fullPlan(), m, SummaryLimit)},
		{"apply_success.md.golden", ApplyComment(applySuccess(), m, CommentLimit)},
		{"apply_failure.md.golden", ApplyComment(applyFailure(), m, CommentLimit)},
		{"drift_issue.md.golden", DriftIssue(drift(), m, CommentLimit)},
		{"drift_resolved.md.golden", DriftResolvedComment(m)},
		{"help.md.golden", HelpComment()},
		{"comment_destroy_all.md.golden", PlanComment(destroyAll(), m, CommentLimit)},
		{"summary_destroy_all.md.golden", PlanSummary(destroyAll(), m, SummaryLimit)},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) { golden(t, tt.file, tt.got) })
	}
}

// destroyAll is the plan of a configuration with no resources against a
// state holding two.
func destroyAll() *plan.Plan {
	p := newPlan("prod", change(plan.Destroy, "Vm", "web", 1), change(plan.Destroy, "Vpc", "main-vpc", 0))
	p.Config = &config.Config{Provider: config.ProviderConfig{Name: "sim"}}
	return p
}

// A 10,000-change plan fits GitHub's limit, keeps its marker, counters,
// callout heading and footer, and says what it left out: changes from
// the end, the destroys and replaces last.
func TestPlanCommentLarge(t *testing.T) {
	p := bigPlan(10000)
	got := PlanComment(p, meta(), CommentLimit)
	if n := len(got); n > CommentLimit {
		t.Fatalf("comment is %d bytes, over %d", n, CommentLimit)
	}
	full := PlanComment(p, meta(), 1<<30)
	for _, want := range []string{
		PlanMarker("", "prod") + "\n",
		"**Plan: 7800 to create, 800 to update, 200 to replace, 200 to destroy, 1000 no-op**",
		"> [!CAUTION]\n> This plan destroys 200 resources and replaces 200 resources:\n",
		"✓ 1000 unchanged resources not shown.",
		"See the full plan in the [job summary/artifact](https://github.com/acme/infra/actions/runs/42/artifacts/7).",
		"digest (sha256) `" + meta().Digest + "`",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("large comment lacks %q", want)
		}
	}
	m := regexp.MustCompile(`Output truncated: (\d+) changes not shown`).FindStringSubmatch(got)
	if m == nil {
		t.Fatal("no truncation notice")
	}
	shown := len(headLine.FindAllString(got, -1))
	if fmt.Sprint(9000-shown) != m[1] {
		t.Errorf("notice says %s not shown, but %d of 9000 changes are shown", m[1], shown)
	}
	if more := "\n…and " + m[1] + " more changes\n```\n"; !strings.Contains(got, more) {
		t.Errorf("the changes' block does not end with %q", more)
	}
	cut := strings.LastIndex(got, "\n…and ")
	if !strings.HasPrefix(full, got[:cut]) {
		t.Error("truncation did not drop changes from the end")
	}
	// Sections are whole: every <details> and fence opened is closed.
	if strings.Count(got, "<details>") != strings.Count(got, "</details>") || strings.Count(got, "\n```diff\n") != strings.Count(got, "\n```\n") {
		t.Error("a section was cut in the middle")
	}
	// Every destroy and replace is still called out and shown, before any
	// other change.
	if !strings.Contains(got, "> - **destroy** Vm `vm-09957` (`10957`)\n") {
		t.Error("the last destroy is not called out")
	}
	if !strings.Contains(got, "- destroy Vm \"vm-09957\"  (level 2 · id 10957)\n") {
		t.Error("the last destroy's change is not shown")
	}
}

// Whatever the limit, the output never exceeds it; above a small minimum the
// counters survive.
func TestMarkdownLimits(t *testing.T) {
	p := bigPlan(2000)
	failing := applyFailure()
	for i := range 500 {
		failing.Failed = append(failing.Failed, ChangeResult{Action: plan.Update, Type: "Vm", Name: fmt.Sprint("vm-", i), Err: strings.Repeat("e", 200)})
	}
	d := drift()
	for i := range 500 {
		d.Resources = append(d.Resources, DriftedResource{Type: "Vm", Name: fmt.Sprint("vm-", i), Properties: []plan.PropChange{{Path: "size", Old: "a", New: "b"}}})
	}
	renders := []struct {
		name, keep string
		render     func(limit int) string
	}{
		{"plan comment", "**Plan: ", func(l int) string { return PlanComment(p, meta(), l) }},
		{"plan summary", "**Plan: ", func(l int) string { return PlanSummary(p, meta(), l) }},
		{"apply comment", "1 succeeded, 501 failed, 1 skipped", func(l int) string { return ApplyComment(failing, meta(), l) }},
		{"drift issue", "502 resources drifted", func(l int) string { return DriftIssue(d, meta(), l) }},
	}
	for _, r := range renders {
		for _, limit := range []int{0, 40, 1500, 4000, 20000, 65536} {
			t.Run(fmt.Sprint(r.name, "/", limit), func(t *testing.T) {
				got := r.render(limit)
				if len(got) > limit {
					t.Fatalf("%d bytes, over the limit %d", len(got), limit)
				}
				if limit >= 4000 && !strings.Contains(got, r.keep) {
					t.Errorf("lost %q:\n%s", r.keep, got)
				}
				if limit >= 4000 && !strings.Contains(got, "How to finish") && r.name == "apply comment" {
					t.Error("lost the instructions")
				}
			})
		}
	}
}

func TestApplyComment(t *testing.T) {
	ok := ApplyComment(applySuccess(), meta(), CommentLimit)
	bad := ApplyComment(applyFailure(), meta(), CommentLimit)
	interrupted := applySuccess()
	interrupted.Interrupted = true
	intr := ApplyComment(interrupted, meta(), CommentLimit)
	tests := []struct {
		name, got, want string
		not             bool
	}{
		{"marker", ok, ApplyMarker("", "prod") + "\n", false},
		{"success title", ok, "succeeded\n", false},
		{"serials and backup", ok, "State serial 7 → 8 · backup `kyku/backups/prod/state.7.json`", false},
		{"digest", ok, meta().Digest, false},
		{"sensitive output masked", ok, "| `dbPassword` | `(sensitive)` |", false},
		{"output shown", ok, "| `webIp` | `203.0.113.7` |", false},
		{"no finish on success", ok, "How to finish", true},
		{"failure title", bad, "failed\n", false},
		{"failure row escaped", bad, "| Vm `web` | create | `` create Vm web: quota exceeded \\| limit 5 `vCPU` `` |", false},
		{"skip cause", bad, "| LoadBalancer `web-lb` | create | `dependency web failed` |", false},
		{"how to finish", bad, "#### How to finish", false},
		{"re-plan advice", bad, "Re-plan on the default branch", false},
		{"interrupted", intr, "interrupted\n", false},
		{"interrupted finish", intr, "How to finish", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Contains(tt.got, tt.want); got == tt.not {
				t.Errorf("contains %q = %v, want %v:\n%s", tt.want, got, !tt.not, tt.got)
			}
		})
	}
}

// Names, types, values and errors cannot break a table, open HTML, or
// mention anyone.
func TestMarkdownEscaping(t *testing.T) {
	evil := "x|y`<script>alert(1)</script>\n| injected | row |"
	p := newPlan("prod", change(plan.Destroy, "Vm@octocat<b>", evil, 0, prop("size", evil, nil)))
	r := applyFailure()
	r.Failed[0].Name, r.Failed[0].Type, r.Failed[0].Err = evil, "Vm@octocat", evil
	d := Drift{Resources: []DriftedResource{{Type: "Vm@octocat", Name: evil, Properties: []plan.PropChange{{Path: evil, Old: evil, New: evil}}}}}
	m := meta()
	m.RunURL = "javascript:alert(1)"
	outs := map[string]string{
		"plan":  PlanComment(p, m, CommentLimit),
		"apply": ApplyComment(r, m, CommentLimit),
		"drift": DriftIssue(d, m, CommentLimit),
	}
	cell := regexp.MustCompile(`(^|[^\\])\|`)
	for name, out := range outs {
		t.Run(name, func(t *testing.T) {
			prose := stripCode(out)
			for _, bad := range []string{"<script>", "<b>", "@octocat", "javascript:", "\n| injected"} {
				if strings.Contains(prose, bad) {
					t.Errorf("output contains %q:\n%s", bad, out)
				}
			}
			// Every table row has as many cells as its header.
			var cols int
			for _, line := range strings.Split(out, "\n") {
				if !strings.HasPrefix(line, "| ") {
					cols = 0
					continue
				}
				n := len(cell.FindAllString(line, -1))
				if cols == 0 {
					cols = n
				} else if n != cols {
					t.Errorf("row has %d cell separators, header %d: %s", n, cols, line)
				}
			}
		})
	}
}

func TestPlanMarker(t *testing.T) {
	tests := []struct{ project, env, want string }{
		{"", "prod", "<!-- kyku:plan env=prod -->"},
		{"infra/core", "prod", "<!-- kyku:plan env=prod project=infra%2Fcore -->"},
		{"", "", "<!-- kyku:plan -->"},
		{"", "a -->b", "<!-- kyku:plan env=a%20--%3Eb -->"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := PlanMarker(tt.project, tt.env); got != tt.want {
				t.Errorf("PlanMarker(%q, %q) = %q, want %q", tt.project, tt.env, got, tt.want)
			}
		})
	}
	if strings.Contains(PlanMarker("", "prod-eu"), PlanMarker("", "prod")) {
		t.Error("one environment's marker is found inside another's")
	}
}

// stripCode removes fenced code blocks and inline code spans, where
// markdown and HTML are inert, leaving what GitHub would interpret.
func stripCode(md string) string {
	var out strings.Builder
	inFence := false
	for _, line := range strings.SplitAfter(md, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for i := 0; i < len(line); {
			if line[i] != '`' {
				out.WriteByte(line[i])
				i++
				continue
			}
			n := 0
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			fence := line[i : i+n]
			rest := line[i+n:]
			end := -1
			for j := 0; j+n <= len(rest); j++ {
				if rest[j:j+n] == fence && (j+n == len(rest) || rest[j+n] != '`') && (j == 0 || rest[j-1] != '`') {
					end = j
					break
				}
			}
			if end < 0 {
				out.WriteString(fence)
				i += n
				continue
			}
			out.WriteString("CODE")
			i += n + end + n
		}
	}
	return out.String()
}

// TestProvidersNoticeLeadsTheComment: a pull request that changes the
// Terraform providers (providers: entries, a lock file) says so before
// the changes, naming each, with why its own did not run.
func TestProvidersNoticeLeadsTheComment(t *testing.T) {
	p := &plan.Plan{Environment: "prod", Changes: []plan.Change{{Action: plan.Create, ResourceID: "n", Type: "null_resource"}}}
	p.Count()
	got := PlanComment(p, Meta{ProvidersChanged: []string{"providers.null", "infra/.kyku.lock.hcl"}}, CommentLimit)
	notice := strings.Index(got, "> This pull request changes the Terraform providers (`providers.null`, `infra/.kyku.lock.hcl`)")
	summary := strings.Index(got, "**Plan:")
	if notice < 0 || summary < 0 || notice > summary || !strings.Contains(got, "used the default branch's providers and lock file") {
		t.Errorf("the providers notice is missing or not first:\n%s", got)
	}
	if strings.Contains(PlanComment(p, Meta{}, CommentLimit), "Terraform providers") {
		t.Error("a pull request that changes no provider gets the notice")
	}
}
