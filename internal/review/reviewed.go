package review

import (
	"context"
	"fmt"
	"regexp"
	"sync"

	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/render"
)

// The plan comment carries, after the rendered plan, one hidden line
// naming the commit it is for and the changes digest it shows:
//
//	<!-- kyku:reviewed head=<sha> changes=<digest> -->
//
// At apply time Kyku reads it back from its OWN newest plan comment (never
// from anyone else's), once the comment is found to be exactly what Kyku
// posted (posted.go), and applies only a fresh plan with that digest.

var reviewedRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^<!-- kyku:reviewed head=([0-9a-fA-F]{7,64}) changes=([0-9a-f]{64}) -->$`)
})

// reviewedLine is the hidden line of a plan comment for head showing digest.
func reviewedLine(head, digest string) string {
	return "<!-- kyku:reviewed head=" + head + " changes=" + digest + " -->"
}

// shown is what Kyku's newest plan comment showed for review.
type shown struct {
	comment github.Comment
	head    string // "" when the newest plan comment shows no plan (a failed one)
	digest  string
}

// reviewedPlan finds Kyku's newest plan comment on number (written by the
// account Kyku writes as: GitHub.OwnComments) and what it showed. found is
// false when there is none.
func reviewedPlan(ctx context.Context, gh Evidence, s Settings, number int) (shown, bool, error) {
	cs, err := gh.OwnComments(ctx, number, render.PlanMarker(s.Project, s.Environment))
	if err != nil {
		return shown{}, false, fmt.Errorf("read the plan comment of #%d: %w", number, err)
	}
	if len(cs) == 0 {
		return shown{}, false, nil
	}
	c := cs[len(cs)-1]
	out := shown{comment: c}
	if m := reviewedRE().FindAllStringSubmatch(c.Body, -1); len(m) == 1 {
		out.head, out.digest = m[0][1], m[0][2]
	}
	return out, true, nil
}
