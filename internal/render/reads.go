package render

import (
	"strconv"

	"github.com/kyku/action/internal/plan"
)

// ReadsLine says in one line how much of the state the plan read from
// the cloud ("" for a plan that says nothing of it, or covers no object
// in state): the terminal and the PR comment print it under the summary.
func ReadsLine(p *plan.Plan) string {
	r := p.Reads
	if r == nil || r.Objects == 0 {
		return ""
	}
	of := thousands(r.Objects) + " " + objectsWord(r.Objects)
	switch r.Refresh {
	case "all":
		return "Read all " + of + " from the cloud (--refresh=all)."
	case "none":
		return "Read none of " + of + " from the cloud (--refresh=none): planned against state."
	}
	left := r.Objects - r.Read
	return "Read " + thousands(r.Read) + " of " + of + " from the cloud; " + thousands(left) + " unchanged since their last apply (--refresh=all reads every one)."
}

func objectsWord(n int) string {
	if n == 1 {
		return "object"
	}
	return "objects"
}

// thousands writes n with a comma between groups of three digits: 5,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return neg + s
}
