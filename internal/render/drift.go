package render

import (
	"sort"
	"strings"
	"time"

	"github.com/kyku/action/internal/markdown"
	"github.com/kyku/action/internal/plan"
)

// Drift is what a refresh found different between the state (or config)
// and the cloud.
type Drift struct {
	Environment string
	Resources   []DriftedResource
	CheckedAt   time.Time
}

// DriftedResource is one resource that drifted. In Properties, Old is the
// value in state/config and New the value in the cloud.
type DriftedResource struct {
	Type       string
	Name       string
	ProviderID string
	Gone       bool // deleted from the cloud
	Properties []plan.PropChange
}

// DriftTitle is the title of the one drift issue per project and environment.
func DriftTitle(project, env string) string {
	s := "Kyku: drift detected in " + oneLine(envName(env))
	if project != "" {
		s += " (" + oneLine(project) + ")"
	}
	return s
}

// DriftIssue renders d as the body of the drift issue: the DriftMarker line,
// a count, a table `| Resource | Property | In state/config | In the cloud |`
// (gone resources as one row each, sensitive values masked), what to do, and
// the footer. Within limit bytes, rows are dropped from the end.
func DriftIssue(d Drift, m Meta, limit int) string {
	env := firstNonEmpty(d.Environment, m.Environment)
	m.Digest = "" // a drift report is not about a plan
	res := append([]DriftedResource(nil), d.Resources...)
	sort.SliceStable(res, func(i, j int) bool {
		if res[i].Name != res[j].Name {
			return res[i].Name < res[j].Name
		}
		return res[i].Type < res[j].Type
	})
	gone := 0
	var rows []string
	for _, r := range res {
		name := text(r.Type) + " " + cellCode(r.Name)
		if r.ProviderID != "" {
			name += " (" + cellCode(r.ProviderID) + ")"
		}
		if r.Gone {
			gone++
			rows = append(rows, "| "+name+" | — | exists | **gone** |\n")
			continue
		}
		props := append([]plan.PropChange(nil), r.Properties...)
		sort.SliceStable(props, func(i, j int) bool { return props[i].Path < props[j].Path })
		for _, pc := range props {
			// Cut around where they differ when both are long: a drift
			// never reads as the same text twice.
			was, is := cutPair(oneLine(valueText(oldValue(pc))), oneLine(valueText(cloudValue(pc))), maxCell)
			rows = append(rows, "| "+name+" | "+cellCode(pc.Path)+" | "+cellCode(was)+" | "+cellCode(is)+" |\n")
		}
	}

	var head strings.Builder
	head.WriteString(DriftMarker(m.Project, env) + "\n")
	head.WriteString("### Drift detected in " + code(envName(env)))
	if m.Project != "" {
		head.WriteString(" (project " + code(m.Project) + ")")
	}
	head.WriteString("\n\n**" + plural(len(res), "resource") + " drifted")
	if gone > 0 {
		head.WriteString(" (" + itoa(gone) + " gone from the cloud)")
	}
	head.WriteString("**")
	if !d.CheckedAt.IsZero() {
		head.WriteString(" · checked at " + d.CheckedAt.UTC().Format(time.RFC3339))
	}
	head.WriteString("\n\n")

	var secs []section
	if len(rows) > 0 {
		secs = append(secs, section{
			lead:  "| Resource | Property | In state/config | In the cloud |\n| --- | --- | --- | --- |\n",
			items: rows,
			more:  func(n int) string { return "| …and " + itoa(n) + " more | | | |\n" },
			trail: "\n",
		})
	}
	tail := "#### What to do\n\n" +
		"- To put the cloud back as configured, plan and apply: the plan updates or re-creates these resources.\n" +
		"- To keep what is in the cloud, change the configuration to match and merge it.\n\n" +
		"This issue is updated by every scheduled check and closed when no drift remains.\n\n" + Footer(m)
	notice := func(dropped []int) string {
		return "Output truncated: " + plural(dropped[0], "row") + " not shown. See the full report in the " + markdown.Link("workflow run", m.RunURL) + ".\n\n"
	}
	return fit(limit, head.String(), secs, notice, tail)
}

// cloudValue is the drifted (cloud) value as it may be shown.
func cloudValue(pc plan.PropChange) any {
	if pc.Sensitive {
		return plan.Masked
	}
	return pc.New
}

// DriftResolvedComment is the comment that closes a drift issue.
func DriftResolvedComment(m Meta) string {
	m.Digest = ""
	s := "No drift remains in " + code(envName(m.Environment))
	if m.Project != "" {
		s += " (project " + code(m.Project) + ")"
	}
	return s + ": the cloud matches the state again. Closing this issue.\n\n" + Footer(m)
}

// HelpComment lists the /kyku commands.
func HelpComment() string {
	return "<!-- kyku:help -->\n### Kyku commands\n\n" +
		"Comment one of these on a pull request, on a line of its own:\n\n" +
		"| Command | What it does |\n| --- | --- |\n" +
		"| `/kyku plan [-e env] [-p project]` | Plan again and update the plan comment. |\n" +
		"| `/kyku apply [-e env] [-p project]` | Apply the saved plan for the pull request's current head commit. Needs write permission and, when required, an approval of that commit by someone other than the author. |\n" +
		"| `/kyku help` | Show this list. |\n\n" +
		"`-e`/`--env` picks the environment and `-p`/`--project` the project when there are several. " +
		"A plan that destroys every resource (its configuration has none) is applied only with `/kyku apply --allow-destroy-all`.\n"
}
