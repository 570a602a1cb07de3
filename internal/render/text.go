package render

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// TextOptions shape the human plan output.
type TextOptions struct {
	Color bool // ANSI colours: + green, ~ yellow, ± magenta, - red
	// ShowNoOp lists each unchanged resource (`✓ no-op …`, as the seed
	// does); otherwise one line counts them (kyku plan --show-unchanged
	// lists them).
	ShowNoOp bool
	Verbose  bool // also list the properties of destroys
}

// minHeadWidth is the width of the "<symbol> <action> <Type> "<name>"" column
// in the seed's example, so the levels line up as they do there.
const minHeadWidth = 42

const (
	ansiReset   = "\x1b[0m"
	ansiRed     = "\x1b[31m"
	ansiGreen   = "\x1b[32m"
	ansiYellow  = "\x1b[33m"
	ansiMagenta = "\x1b[35m"
	ansiCyan    = "\x1b[36m"
)

func actionColor(a plan.Action) string {
	switch a {
	case plan.Create:
		return ansiGreen
	case plan.Update:
		return ansiYellow
	case plan.Replace:
		return ansiMagenta
	case plan.Destroy, plan.Forget:
		return ansiRed
	case plan.Move, plan.Import, plan.Read:
		return ansiCyan
	}
	return ""
}

// changeHead is `<symbol> <action> <Type> "<name>"`, an instance's
// address bare (`web[0]`, `edge["a"]`), and for a move where from
// (`→ move Vm web[0] (from "app-server")`), for an import which object
// (`⇐ import Vm "web" (id 123)`; by an import ID that is not the
// object's ID, both: `(import id 42,1,100, id 42)`).
func changeHead(c plan.Change) string {
	s := c.Action.Symbol() + " " + c.Action.String() + " " + oneLine(c.Type) + " " + nameText(c.ResourceID)
	switch {
	case c.MovedFrom != "" && c.Action == plan.Move:
		s += " (from " + nameText(c.MovedFrom) + ")"
	case c.MovedFrom != "":
		s += " (moved from " + nameText(c.MovedFrom) + ")"
	case c.Action == plan.Import && c.ImportID != "" && c.ImportID != c.ProviderID:
		s += " (import id " + oneLine(c.ImportID) + ", id " + oneLine(c.ProviderID) + ")"
	case c.Action == plan.Import:
		s += " (id " + oneLine(c.ProviderID) + ")"
	}
	return s
}

// nameText is a resource name for people: quoted, or, for an instance
// (web[0], edge["a"]) or a Terraform address (aws_vpc.main,
// module.net.aws_subnet.private[0]), its address as it is written.
func nameText(n string) string {
	if strings.IndexByte(n, '[') > 0 {
		return oneLine(n)
	}
	if strings.IndexByte(n, '.') > 0 {
		if _, ok := value.ParseAddress(n); ok {
			return n
		}
	}
	return strconv.Quote(n)
}

// PlanText writes the seed's human plan format:
//
//	Plan: 3 to create, 1 to update, 0 to replace, 1 to destroy, 2 no-op
//
//	Changes:
//	  + create Vpc "main-vpc"                    (level 0)
//	  ~ update LoadBalancer "web-lb"             (level 3)
//	      port: 80 → 443
//	  ✓ no-op Database "app-db"
//
// No-ops come last, after the destroys, whatever their level; unless
// ShowNoOp, one line counts them instead (`✓ 300 unchanged resources not
// shown; --show-unchanged lists them`).
// Property lines show `path: old → new` (a create's `path: new`);
// sensitive values as (sensitive), what is known only after apply as
// (known after apply) beside the parts that are known, a string of
// several lines as a heredoc, and `# forces replacement: <the provider's
// reason>` after a property that causes a replace. Destroys list their
// properties only when Verbose. Then "Changes to Outputs:" lists the
// outputs that apply adds (+), changes (~) or removes (-).
func PlanText(w io.Writer, p *plan.Plan, opts TextOptions) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, summaryLine(p))
	if p.DestroysAll() {
		fmt.Fprintln(bw, "Warning: this plan destroys every resource in state: the configuration has no resources.")
	}
	if len(p.Targets) > 0 {
		fmt.Fprintln(bw, "Targeted: only "+oneLine(strings.Join(p.Targets, ", "))+" and what it depends on.")
	}
	if len(p.Exclude) > 0 {
		fmt.Fprintln(bw, "Excluded: "+oneLine(strings.Join(p.Exclude, ", "))+" and what depends on it are left as they are.")
	}
	if len(p.Replace) > 0 {
		fmt.Fprintln(bw, "Replacing, as requested (--replace): "+oneLine(strings.Join(p.Replace, ", "))+".")
	}
	if l := forgetLine(p); l != "" {
		fmt.Fprintln(bw, l)
	}
	if l := ReadsLine(p); l != "" {
		fmt.Fprintln(bw, l)
	}
	for _, w := range p.Warnings {
		fmt.Fprintln(bw, "Warning: "+w)
	}
	fmt.Fprintln(bw)
	if !changesResources(p) {
		if len(p.OutputChanges) == 0 {
			fmt.Fprintln(bw, noChanges)
			return flush(bw)
		}
		// As OpenTofu says it: the plan changes outputs, not nothing.
		writeOutputChanges(bw, p.OutputChanges, opts.Color, false)
		fmt.Fprintln(bw, "\n"+outputsOnly)
		return flush(bw)
	}
	// Each head is made once: the widest of the changes sets the column
	// of the levels, and the same text is written.
	heads := make([]string, len(p.Changes))
	width := minHeadWidth
	for i := range p.Changes {
		if p.Changes[i].Action != plan.NoOp {
			heads[i] = changeHead(p.Changes[i])
			width = max(width, utf8.RuneCountInString(heads[i]))
		}
	}
	fmt.Fprintln(bw, "Changes:")
	for _, i := range listed(p.Changes, opts.ShowNoOp) {
		c := &p.Changes[i]
		head := heads[i]
		if c.Action == plan.NoOp {
			head = changeHead(*c)
		}
		// written in pieces: thousands of changes, each a line or more
		bw.WriteString("  ")
		if col := actionColor(c.Action); opts.Color && col != "" {
			bw.WriteString(col + head + ansiReset)
		} else {
			bw.WriteString(head)
		}
		if c.Action != plan.NoOp {
			for range width - utf8.RuneCountInString(head) {
				bw.WriteByte(' ')
			}
			bw.WriteString(" (level ")
			bw.WriteString(strconv.Itoa(c.Level))
			bw.WriteByte(')')
		}
		bw.WriteByte('\n')
		if c.Reason != "" {
			fmt.Fprintln(bw, "      # "+oneLine(c.Reason))
		}
		if c.ReplaceOrder != "" {
			fmt.Fprintln(bw, "      # "+replaceOrderText(c))
		}
		if c.PriorCloudName != "" {
			fmt.Fprintln(bw, "      cloud name: "+oneLine(c.PriorCloudName)+" → "+oneLine(c.CloudName))
		}
		if !showProps(c.Action, opts.Verbose) {
			continue
		}
		for _, pc := range c.Properties {
			for _, l := range propLines(c.Action, shown(*c, pc), c.References) {
				bw.WriteString("      ")
				bw.WriteString(l)
				bw.WriteByte('\n')
			}
		}
	}
	if n := unchanged(p.Changes); n > 0 && !opts.ShowNoOp {
		fmt.Fprintln(bw, "  "+plan.NoOp.Symbol()+" "+notShown(n)+"; --show-unchanged lists them")
	}
	writeOutputChanges(bw, p.OutputChanges, opts.Color, true)
	return flush(bw)
}

// writeOutputChanges writes the "Changes to Outputs:" section (nothing
// when no output changes): `+ name: new`, `~ name: old → new`,
// `- name: old`, as property lines are written; blank: after a blank line.
func writeOutputChanges(bw *bufio.Writer, ocs []plan.OutputChange, color, blank bool) {
	if len(ocs) == 0 {
		return
	}
	if blank {
		fmt.Fprintln(bw)
	}
	fmt.Fprintln(bw, "Changes to Outputs:")
	for _, oc := range ocs {
		sym := oc.Action.Symbol()
		if col := actionColor(oc.Action); color && col != "" {
			sym = col + sym + ansiReset
		}
		for i, l := range propLines(oc.Action, outputProp(oc), nil) {
			if i == 0 {
				fmt.Fprintln(bw, "  "+sym+" "+l)
			} else {
				fmt.Fprintln(bw, "    "+l)
			}
		}
	}
}

// outputProp is an output's change as a property's, for the lines that
// show it (its values are already masked where secret).
func outputProp(oc plan.OutputChange) plan.PropChange {
	return plan.PropChange{Path: oc.Name, Old: oc.Old, New: oc.New, Unknown: oc.Unknown}
}

// listed is the order of the human format, as indices of cs: the changes
// in plan order, then the no-ops (when shown), as the seed lists them.
func listed(cs []plan.Change, noOps bool) []int {
	out := make([]int, 0, len(cs))
	for i := range cs {
		if cs[i].Action != plan.NoOp {
			out = append(out, i)
		}
	}
	if noOps {
		for i := range cs {
			if cs[i].Action == plan.NoOp {
				out = append(out, i)
			}
		}
	}
	return out
}

// unchanged counts the no-ops among cs.
func unchanged(cs []plan.Change) int {
	n := 0
	for _, c := range cs {
		if c.Action == plan.NoOp {
			n++
		}
	}
	return n
}

// notShown is "300 unchanged resources not shown".
func notShown(n int) string { return plural(n, "unchanged resource") + " not shown" }

func flush(bw *bufio.Writer) error {
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write plan: %w", err)
	}
	return nil
}

func showProps(a plan.Action, verbose bool) bool {
	switch a {
	case plan.Create, plan.Update, plan.Replace, plan.Import, plan.Read:
		return true
	case plan.Destroy, plan.Forget:
		return verbose
	}
	return false
}

// propLines are the lines of one property: `path: old → new` (creates and
// reads during apply: `path: new`, destroys: `path: old`); a string of
// several lines, a list or a map is a block (valueBlock), its lines
// indented under the property, a changed one's marked "- " (removed) or
// "+ " (added); a value names the reference it came from (refs, by
// path: withRef):
//
//	value: <<-EOT
//	    line one
//	  - line two
//	  + line 2
//	EOT
func propLines(a plan.Action, pc plan.PropChange, refs map[string]string) []string {
	path := oneLine(pc.Path) + ": "
	if b, ok := valueBlock(a, pc, refs); ok {
		out := make([]string, 0, len(b.lines)+2)
		out = append(out, path+b.head(pc))
		for _, l := range b.lines {
			out = append(out, "  "+string(l.mark)+" "+l.String())
		}
		return append(out, b.close)
	}
	old, new := oldValue(pc), newValue(pc)
	switch a {
	case plan.Create, plan.Read:
		path += withRef(valueText(new), refOf(pc, refs))
	case plan.Destroy, plan.Forget:
		path += valueText(old)
	default:
		path += valueText(old) + " → " + withRef(valueText(new), refOf(pc, refs))
	}
	return []string{path + forcesNote(pc)}
}
