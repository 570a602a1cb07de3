package render

import (
	"strings"

	"github.com/kyku/action/internal/markdown"
	"github.com/kyku/action/internal/plan"
)

// CommentLimit is GitHub's limit on a comment or issue body, in characters.
const CommentLimit = 65536

// SummaryLimit is GitHub's limit on one step's job summary (1 MiB).
const SummaryLimit = 1 << 20

// PlanComment renders p as the sticky PR comment: the PlanMarker line, a
// title, the counters, the policy check (m.Policy: denials, warnings, or
// why the policies could not be evaluated), then the changes, as the
// plan text shows them, in ```diff blocks: first "⚠ Destroys and
// replaces" (a CAUTION callout counting them), then the other changes,
// each section folded in <details> only when the plan is long (past
// FoldChanges changes or FoldLines lines; the callout then lists every
// destroy and replace, one a line); the changes to outputs; the unchanged resources (one count
// line, or with m.ShowUnchanged their list); the picture of the change
// when it helps (pictureHelps); and a footer with the commit, the plan
// digest and the run link.
//
// The result never exceeds limit bytes: past it, the picture goes first,
// then changes from the end (the destroys and replaces last, the
// callout's items after them; its heading and the counters never), and
// a line says how many changes are not shown and links to
// m.ArtifactURL, or m.RunURL.
func PlanComment(p *plan.Plan, m Meta, limit int) string {
	return planMarkdown(p, m, limit, true)
}

// PlanSummary renders p for the job summary (or a check run's output): the
// same as PlanComment without the marker and the apply hint; callers pass
// SummaryLimit, or 65535 for a check run.
func PlanSummary(p *plan.Plan, m Meta, limit int) string {
	return planMarkdown(p, m, limit, false)
}

func planMarkdown(p *plan.Plan, m Meta, limit int, comment bool) string {
	env := firstNonEmpty(p.Environment, m.Environment)
	var head strings.Builder
	if comment {
		head.WriteString(PlanMarker(m.Project, env) + "\n")
	}
	head.WriteString("### Kyku plan for " + code(envName(env)))
	if m.Project != "" {
		head.WriteString(" (project " + code(m.Project) + ")")
	}
	head.WriteString("\n\n")
	head.WriteString(destroyAllWarning(p, m, env, comment))
	head.WriteString(ProvidersNotice(m.ProvidersChanged))
	head.WriteString(rulesNotice(m.RulesChanged))
	head.WriteString("**" + summaryLine(p) + "**\n\n")
	if l := ReadsLine(p); l != "" {
		head.WriteString(l + "\n\n")
	}
	if !p.HasChanges() {
		head.WriteString(noChanges + "\n\n")
	}
	head.WriteString(policySection(m.Policy))

	rc := reviewChanges(p)
	secs, blocksAt := rc.sections()
	outputsAt := -1
	if len(p.OutputChanges) > 0 {
		outputsAt = len(secs)
		secs = append(secs, outputsSection(p.OutputChanges, rc.long))
	}
	if m.ShowUnchanged && p.HasChanges() {
		if sec, ok := unchangedSection(p.Changes); ok {
			secs = append(secs, sec)
		}
	}
	if pictureHelps(p) {
		if pic := pictureSection(p); pic != "" {
			secs = append(secs, section{items: []string{pic}})
		}
	}

	var tail strings.Builder
	if n := unchanged(p.Changes); n > 0 && !m.ShowUnchanged && p.HasChanges() {
		tail.WriteString(plan.NoOp.Symbol() + " " + notShown(n) + ".\n\n")
	}
	switch {
	case comment && p.DestroysAll():
		tail.WriteString("To apply this plan, comment " + code(applyCommand(m.Project, env)+" --allow-destroy-all") +
			"; merging the pull request does not apply it.\n\n")
	case comment && p.HasChanges():
		tail.WriteString("To apply this plan, merge the pull request or comment " + code(applyCommand(m.Project, env)) + ".\n\n")
	}
	tail.WriteString(Footer(m))

	notice := func(dropped []int) string {
		n := 0
		for _, i := range blocksAt {
			n += dropped[i]
		}
		where := markdown.Link("job summary/artifact", firstNonEmpty(markdown.URL(m.ArtifactURL), markdown.URL(m.RunURL)))
		if !comment {
			where = markdown.Link("plan.json artifact", m.ArtifactURL)
		}
		what := plural(n, "change")
		if outputsAt >= 0 && dropped[outputsAt] > 0 {
			what += " and the changes to outputs"
		}
		return "Output truncated: " + what + " not shown. See the full plan in the " + where + ".\n\n"
	}
	return fit(limit, head.String(), secs, notice, tail.String())
}

// destroyAllWarning leads the plan of a configuration with no resources,
// which destroys everything in state ("" for any other plan): in a comment,
// with the explicit word its apply needs.
func destroyAllWarning(p *plan.Plan, m Meta, env string, comment bool) string {
	if !p.DestroysAll() {
		return ""
	}
	s := "> [!WARNING]\n> **This plan destroys every resource in " + code(envName(env)) + "** (" + plural(p.Counters.Destroy, "resource") +
		"): the configuration has no resources. If it was emptied or truncated by mistake, fix it and push again."
	if comment {
		s += " Applying it needs the explicit word: " + code(applyCommand(m.Project, env)+" --allow-destroy-all") + "; a merge does not apply it."
	}
	return s + "\n\n"
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func applyCommand(project, env string) string {
	s := "/kyku apply"
	if env != "" {
		s += " -e " + env
	}
	if project != "" {
		s += " -p " + project
	}
	return s
}

// cautionLead is "This plan destroys 1 resource and replaces 2 resources".
func cautionLead(c plan.Counters) string {
	var parts []string
	if c.Destroy > 0 {
		parts = append(parts, "destroys "+plural(c.Destroy, "resource"))
	}
	if c.Replace > 0 {
		parts = append(parts, "replaces "+plural(c.Replace, "resource"))
	}
	return "This plan " + strings.Join(parts, " and ")
}

// cautionItem is "**destroy** Vm `old-worker`" (+ what forces a replace).
func cautionItem(c plan.Change) string {
	s := "**" + c.Action.String() + "** " + text(c.Type) + " " + code(c.ResourceID)
	if c.ProviderID != "" {
		s += " (" + code(c.ProviderID) + ")"
	}
	if c.Action == plan.Replace {
		var forced []string
		for _, pc := range c.Properties {
			if pc.ForcesReplace {
				f := code(pc.Path)
				if pc.ReplaceReason != "" {
					f += " (" + text(truncateRunes(oneLine(pc.ReplaceReason), maxCell)) + ")"
				}
				forced = append(forced, f)
			}
		}
		if len(forced) > 0 {
			s += ": forced by " + strings.Join(forced, ", ")
		}
	}
	return s
}

// diffLines renders one property as diff lines: creates and reads during
// apply `+ path: new`,
// destroys `- path: old`, updates and replaces a `-` line with the old value
// and a `+` line with the new one; `# forces replacement` marks a property
// that causes a replace; a new value names the reference it came from
// (refs, by path: withRef). A value is on one line, so a fence cannot close,
// but for a string of several lines, a list or a map: a block whose lines
// are indented past any fence (blockDiff).
func diffLines(a plan.Action, pc plan.PropChange, refs map[string]string) string {
	path := truncateRunes(oneLine(pc.Path), maxCell)
	if b, ok := valueBlock(a, pc, refs); ok {
		return blockDiff(a, path, b, pc)
	}
	oldText, newText := cutPair(valueText(oldValue(pc)), valueText(newValue(pc)), maxCell)
	newText = withRef(newText, truncateRunes(refOf(pc, refs), maxCell))
	oldLine := "- " + path + ": " + oldText + "\n"
	newLine := "+ " + path + ": " + newText
	newLine += truncateRunes(forcesNote(pc), maxCell) + "\n"
	switch a {
	case plan.Create, plan.Read:
		return newLine
	case plan.Destroy, plan.Forget:
		return oldLine
	}
	return oldLine + newLine
}

// blockDiff writes a block (a heredoc, a list, a map) as diff lines: a
// create's all `+`, a destroy's all `-`, a change in place's unchanged
// lines as context and the others `-` or `+`, every line of text
// indented four spaces past its mark (never a fence) and cut to maxCell
// runes:
//
//	  value: <<-EOT
//	      line one
//	-     line two
//	+     line 2
//	  EOT
func blockDiff(a plan.Action, path string, bl block, pc plan.PropChange) string {
	lead := "  "
	switch a {
	case plan.Create, plan.Read:
		lead = "+ "
	case plan.Destroy, plan.Forget:
		lead = "- "
	}
	var b strings.Builder
	b.WriteString(lead + path + ": " + truncateRunes(bl.head(pc), maxCell) + "\n")
	for _, l := range bl.lines {
		mark := lead
		if l.mark != ' ' {
			mark = string(l.mark) + " "
		}
		b.WriteString(mark + indentStep + truncateRunes(l.String(), maxCell) + "\n")
	}
	b.WriteString(lead + bl.close + "\n")
	return b.String()
}

// cutPair cuts an old and a new value's texts to at most n runes each
// (n > 3). Where cutting both at the end would make two different texts
// read the same (a long script with a line appended), both are cut around
// the first rune where they differ instead, with about a third of the
// cell before it, so a reviewer never reads the same text twice for a
// change: "…steps ok\ncurl -s https://…".
func cutPair(old, new string, n int) (string, string) {
	o, w := truncateRunes(old, n), truncateRunes(new, n)
	if o != w || old == new {
		return o, w
	}
	ro, rw := []rune(old), []rune(new)
	d := 0
	for d < len(ro) && d < len(rw) && ro[d] == rw[d] {
		d++
	}
	start := max(0, d-n/3)
	return window(ro, start, n), window(rw, start, n)
}

// window is at most n runes of r from start on, "…" marking what is cut
// on either side.
func window(r []rune, start, n int) string {
	if start == 0 {
		return truncateRunes(string(r), n)
	}
	rest := r[min(start, len(r)):]
	if len(rest) < n {
		return "…" + string(rest)
	}
	return "…" + string(rest[:n-2]) + "…"
}

// rulesNotice says that the pull request changes the review rules: they
// judge the pull requests after it, not this one (which the default
// branch's rules, as they were before it, judge).
func rulesNotice(files []string) string {
	if len(files) == 0 {
		return ""
	}
	var names []string
	for i, f := range files {
		if i == 10 {
			names = append(names, "…and "+itoa(len(files)-i)+" more")
			break
		}
		names = append(names, code(f))
	}
	return "> [!IMPORTANT]\n> This pull request changes the review rules; they apply from the next PR (" + strings.Join(names, ", ") +
		"). This one is judged by the rules on the default branch as they were before it, on merge too.\n\n"
}

// ProvidersNotice says that the pull request changes the Terraform
// providers (their providers: entries or lock): provider binaries run with
// the run's credentials, so its plan ran the default branch's, and its
// own take effect once merged.
func ProvidersNotice(changed []string) string {
	if len(changed) == 0 {
		return ""
	}
	var names []string
	for i, c := range changed {
		if i == 10 {
			names = append(names, "…and "+itoa(len(changed)-i)+" more")
			break
		}
		names = append(names, code(c))
	}
	return "> [!IMPORTANT]\n> This pull request changes the Terraform providers (" + strings.Join(names, ", ") +
		"). Provider programs run with this run's credentials, so this plan used the default branch's providers and lock file; " +
		"the pull request's take effect once it is merged. Review them like code.\n\n"
}
