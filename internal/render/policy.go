package render

import (
	"strings"

	"github.com/kyku/action/internal/markdown"
)

// PolicyReport is the outcome of a policy check, as shown in the plan
// comment (a section before the changes), the job summary and the check
// run `kyku policy (<env>)`.
type PolicyReport struct {
	Deny, Warn         []string
	MoreDeny, MoreWarn int // messages beyond those listed
	// Error is why the policies could not be evaluated (one
	// "file:line:col: message" per line); set, it blocks like a denial.
	Error string
	Files []string // the policy files evaluated
	Ref   string   // where they were read from (a branch or commit)
}

// Blocks reports whether the report blocks an apply (a denial, or
// policies that could not be evaluated).
func (r *PolicyReport) Blocks() bool {
	return r != nil && (r.Error != "" || len(r.Deny)+r.MoreDeny > 0)
}

// maxPolicyLines is how many messages of each kind a comment lists.
const maxPolicyLines = 20

// policySection is the plan comment's policy section ("" without policies).
func policySection(r *PolicyReport) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	switch {
	case r.Error != "":
		b.WriteString("#### ⛔ The policies could not be evaluated\n\n")
		b.WriteString(fencedText(r.Error))
		b.WriteString("\nA policy that cannot be evaluated blocks apply, like a denial: fix it on the default branch, or have a policy owner approve the head commit.\n\n")
	case len(r.Deny)+r.MoreDeny > 0:
		b.WriteString("#### ⛔ Policies deny this plan\n\n")
		b.WriteString(messageList(r.Deny, r.MoreDeny))
		b.WriteString("\nApply is blocked unless a policy owner approves the head commit.\n\n")
	}
	if len(r.Warn)+r.MoreWarn > 0 {
		b.WriteString("#### ⚠️ Policy warnings\n\n")
		b.WriteString(messageList(r.Warn, r.MoreWarn))
		b.WriteString("\nWarnings do not block apply.\n\n")
	}
	if !r.Blocks() {
		b.WriteString("✓ Policies passed: " + plural(len(r.Files), "policy file") + policyRef(r) + ".\n\n")
	}
	return b.String()
}

func policyRef(r *PolicyReport) string {
	if r.Ref == "" {
		return ""
	}
	return " from " + code(r.Ref)
}

func messageList(msgs []string, more int) string {
	var b strings.Builder
	for i, m := range msgs {
		if i == maxPolicyLines {
			more += len(msgs) - i
			break
		}
		b.WriteString("- " + text(m) + "\n")
	}
	if more > 0 {
		b.WriteString("- …and " + itoa(more) + " more\n")
	}
	return b.String()
}

// fencedText is s in a fenced block whose fence no line of s can close
// (cut at 8,000 bytes).
func fencedText(s string) string { return markdown.Block(cut(s, 8000)) }

// PolicyCheck is the title and summary of the check run
// `kyku policy (<env>)` for r.
func PolicyCheck(r PolicyReport, m Meta) (title, summary string) {
	switch {
	case r.Error != "":
		title = "The policies could not be evaluated"
	case len(r.Deny)+r.MoreDeny > 0:
		title = plural(len(r.Deny)+r.MoreDeny, "denial")
	default:
		title = "Policies passed"
	}
	if n := len(r.Warn) + r.MoreWarn; n > 0 {
		title += ", " + plural(n, "warning")
	}
	var b strings.Builder
	b.WriteString("### Kyku policy check for " + code(envName(m.Environment)))
	if m.Project != "" {
		b.WriteString(" (project " + code(m.Project) + ")")
	}
	b.WriteString("\n\n" + policySection(&r))
	if len(r.Files) > 0 {
		b.WriteString("Policy files" + policyRef(&r) + ":\n\n")
		for i, f := range r.Files {
			if i == 50 {
				b.WriteString("- …and " + itoa(len(r.Files)-i) + " more\n")
				break
			}
			b.WriteString("- " + code(f) + "\n")
		}
		b.WriteString("\n")
	}
	m.Digest = ""
	b.WriteString(Footer(m))
	return title, cut(b.String(), 65535)
}
