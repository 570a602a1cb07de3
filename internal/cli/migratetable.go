package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kyku/action/internal/noun"
	"github.com/kyku/action/internal/plan"
)

// The table kyku migrate check prints: one row per root and workspace,
// then one line saying whether the switch would change anything.

// writeCheckTable writes rows, every text through scrub (secrets).
func writeCheckTable(w io.Writer, rows []checkRow, scrub func(string) string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ROOT\tWORKSPACE\tRESOURCES\tRESULT")
	var noop, changes, failed int
	for _, r := range rows {
		resources, result := "-", ""
		switch {
		case r.Err != nil:
			failed++
			result = "error: " + errorLine(r.Err)
		case r.Plan.HasChanges():
			changes++
			resources, result = strconv.Itoa(r.Resources), differences(r.Plan)
		default:
			noop++
			resources, result = strconv.Itoa(r.Resources), "no-op"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Root, r.Workspace, resources, scrub(result))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	total := len(rows)
	var err error
	switch {
	case noop == total:
		_, err = fmt.Fprintf(w, "\n%s: every one plans no changes.\n", noun.Count(total, "root workspace"))
	default:
		_, err = fmt.Fprintf(w, "\n%d of %s plan no changes; %d plan changes, %d failed. Switch only once every one is a no-op.\n", noop, noun.Count(total, "root workspace"), changes, failed)
	}
	return err
}

// differences says what a plan would change: each action's count and
// the addresses it acts on.
func differences(p *plan.Plan) string {
	order := []plan.Action{plan.Create, plan.Update, plan.Replace, plan.Destroy, plan.Move, plan.Import, plan.Forget, plan.Read}
	by := map[plan.Action][]string{}
	for _, c := range p.Changes {
		if c.Action != plan.NoOp {
			by[c.Action] = append(by[c.Action], c.ResourceID)
		}
	}
	var parts []string
	for _, a := range order {
		if names := by[a]; len(names) > 0 {
			parts = append(parts, fmt.Sprintf("%d to %s: %s", len(names), a, strings.Join(names, ", ")))
		}
	}
	return strings.Join(parts, "; ")
}
