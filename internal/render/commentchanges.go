package render

import (
	"slices"
	"strings"

	"github.com/kyku/action/internal/plan"
)

// A plan comment shows the changes as the plan text does, in ```diff
// blocks, the destroys and replaces first under their own heading, each
// section folded in <details> only when the plan is long.

// When a plan is long: more than FoldChanges changes (unchanged resources
// do not count), or more than FoldLines lines of them. A short plan's
// changes are open; a long one's are folded, and its CAUTION callout
// lists every destroy and replace, one a line.
const (
	FoldChanges = 10
	FoldLines   = 40
)

// changeSet is a plan's changes as the comment shows them: the destroys
// and replaces (danger), then the others (rest), each in plan order and
// rendered (changeText); long says whether the plan is long.
type changeSet struct {
	counters     plan.Counters
	danger, rest []string
	dangerItems  []string // the callout's line for each destroy and replace
	restTitle    string
	long         bool
}

// reviewChanges sorts and renders p's changes for its comment.
func reviewChanges(p *plan.Plan) changeSet {
	cs := changeSet{counters: p.Counters}
	lines := 0
	var kinds []plan.Action
	for _, c := range p.Changes {
		if c.Action == plan.NoOp {
			continue
		}
		t := changeText(c)
		lines += strings.Count(t, "\n")
		switch c.Action {
		case plan.Destroy, plan.Replace:
			cs.danger = append(cs.danger, t)
			cs.dangerItems = append(cs.dangerItems, "> - "+cautionItem(c)+"\n")
		default:
			cs.rest = append(cs.rest, t)
			kinds = append(kinds, c.Action)
		}
	}
	cs.restTitle = restTitle(kinds)
	cs.long = len(cs.danger)+len(cs.rest) > FoldChanges || lines > FoldLines
	return cs
}

// sections are the comment's sections of cs, and which of them hold
// change blocks (what a truncation notice counts).
func (cs changeSet) sections() (secs []section, blocksAt []int) {
	if len(cs.danger) > 0 {
		lead := "#### ⚠ Destroys and replaces\n\n> [!CAUTION]\n> " + cautionLead(cs.counters)
		if cs.long {
			secs = append(secs, section{
				lead:  lead + ":\n>\n",
				items: cs.dangerItems,
				more:  func(n int) string { return "> - …and " + itoa(n) + " more\n" },
				trail: "\n",
			})
			lead = ""
		} else {
			lead += ".\n\n"
		}
		blocksAt = append(blocksAt, len(secs))
		secs = append(secs, diffSection(lead, cs.danger, cs.long))
	}
	if len(cs.rest) > 0 {
		blocksAt = append(blocksAt, len(secs))
		secs = append(secs, diffSection("#### "+cs.restTitle+"\n\n", cs.rest, cs.long))
	}
	return secs, blocksAt
}

// diffSection is blocks in one ```diff block under lead, a blank line
// between two, folded in <details> when fold is set; blocks dropped to
// fit are counted at its end.
func diffSection(lead string, blocks []string, fold bool) section {
	open, close := "```diff\n", "```\n\n"
	if fold {
		open = "<details><summary>" + plural(len(blocks), "change") + ", property by property</summary>\n\n" + open
		close += "</details>\n\n"
	}
	items := make([]string, len(blocks))
	for i, b := range blocks {
		if i > 0 {
			b = "\n" + b
		}
		items[i] = b
	}
	return section{
		lead:  lead + open,
		items: items,
		more:  func(n int) string { return "\n…and " + plural(n, "more change") + "\n" },
		trail: close,
	}
}

// restTitle names what the changes after the destroys and replaces do,
// by their actions, in a fixed order: "Creates and updates", "Updates,
// moves and imports".
func restTitle(actions []plan.Action) string {
	var parts []string
	for _, k := range []struct {
		action plan.Action
		words  string
	}{
		{plan.Create, "creates"}, {plan.Update, "updates"}, {plan.Move, "moves"}, {plan.Import, "imports"},
		{plan.Read, "reads during apply"}, {plan.Forget, "forgets"},
	} {
		if slices.Contains(actions, k.action) {
			parts = append(parts, k.words)
		}
	}
	if len(parts) == 0 {
		return "Changes"
	}
	s := parts[0]
	if len(parts) > 1 {
		s = strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// changeText is one change as the comment's diff shows it, as the plan
// text does: its head with its level, IDs and cloud names, what it says
// of why or how as comments, then its properties (diffLines) under it:
//
//	± replace Vm "web"  (level 2 · id 100)
//	    # destroy-before-create: the object is destroyed, then made again
//	-   image: debian-11
//	+   image: debian-12  # forces replacement
//
// Every line starts with a mark or four spaces: none can close the fence.
func changeText(c plan.Change) string {
	info := []string{"level " + itoa(c.Level)}
	if c.ProviderID != "" {
		info = append(info, "id "+oneLine(c.ProviderID))
	}
	switch {
	case c.PriorCloudName != "":
		info = append(info, "cloud name "+oneLine(c.PriorCloudName)+" → "+oneLine(c.CloudName))
	case c.CloudName != "":
		info = append(info, "cloud name "+oneLine(c.CloudName))
	}
	var b strings.Builder
	b.WriteString(truncateRunes(changeHead(c)+"  ("+strings.Join(info, " · ")+")", 2*maxCell) + "\n")
	if c.Reason != "" {
		b.WriteString("    # " + truncateRunes(oneLine(c.Reason), maxCell) + "\n")
	}
	if c.ReplaceOrder != "" {
		b.WriteString("    # " + truncateRunes(replaceOrderText(&c), maxCell) + "\n")
	}
	for _, pc := range c.Properties {
		b.WriteString(underHead(diffLines(c.Action, shown(c, pc), c.References)))
	}
	return b.String()
}

// underHead indents diff lines two more spaces past their mark, under
// the head of their change.
func underHead(lines string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(lines, "\n") {
		if len(l) >= 2 {
			b.WriteString(l[:2] + "  " + l[2:])
		}
	}
	return b.String()
}

// outputsSection is the changes to outputs, as diff lines of properties
// are written: under a heading, or folded when the plan is long.
func outputsSection(ocs []plan.OutputChange, fold bool) section {
	var b strings.Builder
	if fold {
		b.WriteString("<details><summary>Changes to Outputs (" + plural(len(ocs), "output") + ")</summary>\n\n")
	} else {
		b.WriteString("#### Changes to Outputs\n\n")
	}
	b.WriteString("```diff\n")
	for _, oc := range ocs {
		b.WriteString(diffLines(oc.Action, outputProp(oc), nil))
	}
	b.WriteString("```\n\n")
	if fold {
		b.WriteString("</details>\n\n")
	}
	return section{items: []string{b.String()}}
}

// unchangedSection lists the unchanged resources (Meta.ShowUnchanged),
// folded past FoldChanges of them; ok is false when there are none.
func unchangedSection(cs []plan.Change) (section, bool) {
	var items []string
	for _, c := range cs {
		if c.Action == plan.NoOp {
			items = append(items, truncateRunes(changeHead(c), 2*maxCell)+"\n")
		}
	}
	if len(items) == 0 {
		return section{}, false
	}
	lead, trail := "#### Unchanged\n\n```\n", "```\n\n"
	if len(items) > FoldChanges {
		lead = "#### Unchanged\n\n<details><summary>" + plural(len(items), "unchanged resource") + "</summary>\n\n```\n"
		trail += "</details>\n\n"
	}
	return section{
		lead:  lead,
		items: items,
		more:  func(n int) string { return "…and " + itoa(n) + " more\n" },
		trail: trail,
	}, true
}
