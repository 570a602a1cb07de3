package render

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kyku/action/internal/markdown"
	"github.com/kyku/action/internal/plan"
)

// ApplyResult is what an apply did, for its PR comment.
type ApplyResult struct {
	Environment      string
	Succeeded        []ChangeResult
	Failed           []ChangeResult
	Skipped          []ChangeResult // not attempted: a dependency failed, or the run was interrupted
	Interrupted      bool
	Digest           string // of the applied plan (plan.ChangesDigest)
	SerialBefore     int64
	SerialAfter      int64
	BackupKey        string // the state backup taken before the apply
	Outputs          map[string]any
	SensitiveOutputs map[string]bool
	Duration         time.Duration
}

// ChangeResult is the outcome of one change.
type ChangeResult struct {
	Action     plan.Action
	Type       string
	Name       string
	ProviderID string
	Err        string // the failure, or why it was skipped
}

// ApplyComment renders an apply result as a PR comment: the ApplyMarker
// line, the outcome, counts, failures and skips with their causes, the
// succeeded changes (collapsed), outputs (sensitive ones masked), the state
// serials, the backup key and the plan digest, and — when something failed
// or the run was interrupted — how to finish. Within limit bytes: the
// outputs, then the succeeded, skipped and failed lists are trimmed from the
// end, never the counts or the instructions.
func ApplyComment(r ApplyResult, m Meta, limit int) string {
	env := firstNonEmpty(r.Environment, m.Environment)
	var head strings.Builder
	head.WriteString(ApplyMarker(m.Project, env) + "\n")
	outcome := "succeeded"
	switch {
	case r.Interrupted:
		outcome = "interrupted"
	case len(r.Failed) > 0:
		outcome = "failed"
	}
	head.WriteString("### Kyku apply for " + code(envName(env)))
	if m.Project != "" {
		head.WriteString(" (project " + code(m.Project) + ")")
	}
	head.WriteString(" " + outcome + "\n\n")
	head.WriteString("**" + itoa(len(r.Succeeded)) + " succeeded, " + itoa(len(r.Failed)) + " failed, " +
		itoa(len(r.Skipped)) + " skipped**")
	if r.Duration > 0 {
		head.WriteString(" in " + roundDuration(r.Duration).String())
	}
	head.WriteString("\n\n")

	var secs []section
	if len(r.Failed) > 0 {
		secs = append(secs, resultTable("Failed", "Error", r.Failed))
	}
	if len(r.Skipped) > 0 {
		secs = append(secs, resultTable("Skipped", "Why", r.Skipped))
	}
	if len(r.Succeeded) > 0 {
		items := make([]string, len(r.Succeeded))
		for i, c := range r.Succeeded {
			items[i] = "- " + resultName(c) + "\n"
		}
		secs = append(secs, section{
			lead:  "<details><summary>Succeeded (" + itoa(len(r.Succeeded)) + ")</summary>\n\n",
			items: items,
			more:  func(n int) string { return "- …and " + itoa(n) + " more\n" },
			trail: "\n</details>\n\n",
		})
	}
	if len(r.Outputs) > 0 {
		names := make([]string, 0, len(r.Outputs))
		for k := range r.Outputs {
			names = append(names, k)
		}
		sort.Strings(names)
		rows := make([]string, len(names))
		for i, k := range names {
			v := valueText(r.Outputs[k])
			if r.SensitiveOutputs[k] {
				v = plan.Masked
			}
			rows[i] = "| " + cellCode(k) + " | " + cellCode(v) + " |\n"
		}
		secs = append(secs, section{
			lead:  "#### Outputs\n\n| Output | Value |\n| --- | --- |\n",
			items: rows,
			more:  func(n int) string { return "| …and " + itoa(n) + " more | |\n" },
			trail: "\n",
		})
	}

	var tail strings.Builder
	var facts []string
	facts = append(facts, "State serial "+strconv.FormatInt(r.SerialBefore, 10)+" → "+strconv.FormatInt(r.SerialAfter, 10))
	if r.BackupKey != "" {
		facts = append(facts, "backup "+code(r.BackupKey))
	}
	if r.Digest != "" {
		facts = append(facts, "plan digest (sha256) "+code(r.Digest))
	}
	tail.WriteString(strings.Join(facts, " · ") + "\n\n")
	if len(r.Failed) > 0 || r.Interrupted {
		tail.WriteString(howToFinish(m.Project, env, r.SerialAfter))
	}
	m.Digest = "" // already shown above
	tail.WriteString(Footer(m))

	notice := func(dropped []int) string {
		n := 0
		for _, d := range dropped {
			n += d
		}
		return "Output truncated: " + plural(n, "entry") + " not shown. See the full log in the " + markdown.Link("workflow run", m.RunURL) + ".\n\n"
	}
	return fit(limit, head.String(), secs, notice, tail.String())
}

func roundDuration(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

// resultName is "**create** Vm `web` (`i-123`)".
func resultName(c ChangeResult) string {
	s := "**" + c.Action.String() + "** " + text(c.Type) + " " + code(c.Name)
	if c.ProviderID != "" {
		s += " (" + code(c.ProviderID) + ")"
	}
	return s
}

func resultTable(title, why string, rs []ChangeResult) section {
	rows := make([]string, len(rs))
	for i, c := range rs {
		cause := "—"
		if c.Err != "" {
			cause = cellCode(c.Err)
		}
		name := text(c.Type) + " " + cellCode(c.Name)
		rows[i] = "| " + name + " | " + c.Action.String() + " | " + cause + " |\n"
	}
	return section{
		lead:  "#### " + title + "\n\n| Resource | Action | " + why + " |\n| --- | --- | --- |\n",
		items: rows,
		more:  func(n int) string { return "| …and " + itoa(n) + " more | | |\n" },
		trail: "\n",
	}
}

func howToFinish(project, env string, serial int64) string {
	return "#### How to finish\n\n" +
		"Not every change was applied. The state records exactly what was (serial " + strconv.FormatInt(serial, 10) +
		"), and this plan cannot be applied again: the state has moved on since it was computed. To finish:\n\n" +
		"1. Fix the cause of the failures above, in the configuration or in the cloud account.\n" +
		"2. Re-plan on the default branch (push the fix, or run the workflow there), so that a new plan is computed against the current state.\n" +
		"3. Apply that plan: merge its pull request, or comment " + code(applyCommand(project, env)) + " on it.\n\n"
}
