package review

import (
	"fmt"
	"strings"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/plan"
)

// When the engine leases the objects an apply touches (the default where
// the store can, docs/concurrent-applies.md), the pull requests of one project and
// environment apply without waiting for each other when their changes are
// disjoint. A pull request's branch may then be behind: another pull
// request changed objects since it was planned, which its configuration
// still has as they were. So the reviewed plan is planned again limited to
// the changes the saved plan lists (never reverting another's), and it is
// the reviewed one when it makes exactly those changes: the digest shown
// in the comment and the saved plan's are then compared as before.

// leasedReview reports whether saved is checked and applied under leases.
func leasedReview(eng *engine.Engine, saved *plan.Plan) bool {
	return eng.Leased() && saved != nil && saved.Objects != nil
}

// reviewedDigest is, for a fresh plan limited to saved's changes, saved's
// digest when fresh makes exactly those changes; otherwise fresh's own
// (digest), which the comparisons then refuse.
func reviewedDigest(saved, fresh *plan.Plan, digest string) (string, error) {
	same, err := engine.SameChanges(saved, fresh)
	if err != nil || !same {
		return digest, err
	}
	return ChangesDigest(saved)
}

// heldText refuses an apply that waited in vain for objects another pull
// request's (or run's) apply holds, naming them and it.
func heldText(r request, he *lease.HeldError) string {
	objs := he.Objects
	if len(objs) == 0 {
		objs = []string{he.Object}
	}
	names := make([]string, len(objs))
	for i, o := range objs {
		names[i] = code(o)
	}
	who := "another apply"
	if he.Holder.PR > 0 {
		who = fmt.Sprintf("the apply of pull request #%d", he.Holder.PR)
	}
	if he.Object == lease.Whole {
		names, who = []string{"the whole state"}, "a "+code(he.Holder.Lock.Operation)+" by "+code(he.Holder.Lock.Who)
	}
	s := fmt.Sprintf("The apply of %s needs %s, which %s holds", code(sha7(r.head)), strings.Join(names, ", "), who)
	if he.Holder.Lock.RunURL != "" {
		s += " (run " + he.Holder.Lock.RunURL + ")"
	}
	s += fmt.Sprintf("; it waited %s. Nothing was changed: apply again once that apply has finished.", he.Waited.Round(100*time.Millisecond))
	return s
}
