package render

import (
	"strings"

	"github.com/kyku/action/internal/plan"
)

// Where a planned value came from a reference to another resource
// ("${main-vpc}", "${vpc.id}"), the plan names it beside the value, as
// plan.Change.References records it: `network: vpc-123 (main-vpc)`, or
// for a value known only after apply `network: (known after apply:
// main-vpc)`; for a block (a list, a map, a heredoc) the reference of the
// whole value is a comment on its first line (`subnets: [  # lb.subnets`).
// A secret's property names none.

// refOf is the reference pc's whole value came from ("" for none, or a
// secret).
func refOf(pc plan.PropChange, refs map[string]string) string {
	if pc.Sensitive {
		return ""
	}
	return refs[pc.Path]
}

// withRef is text, one value, with the reference ref it came from
// beside it: "vpc-123 (main-vpc)", or, for a value known only after
// apply, "(known after apply: main-vpc)"; text alone when ref is "".
func withRef(text, ref string) string {
	if ref == "" {
		return text
	}
	ref = oneLine(ref)
	if rest, ok := strings.CutSuffix(text, knownAfterApply); ok {
		return rest + strings.TrimSuffix(knownAfterApply, ")") + ": " + ref + ")"
	}
	return text + " (" + ref + ")"
}

// openRef is what the first line of a block says of the reference the
// whole value came from: "  # main-vpc".
func openRef(ref string) string { return "  # " + oneLine(ref) }
