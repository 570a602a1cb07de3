package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// Apply reads each object it changes (updates, replaces, destroys) again
// just before changing it, and refuses the change when the object is not
// the one the plan read (plan.Change.PriorDigests): a plan that took
// other objects from state, or one made minutes ago, never applies over
// a cloud that moved since.

// MovedError refuses to change an object that changed in the cloud since
// the plan read it. Nothing was changed for it; plan again.
type MovedError struct {
	Action plan.Action
	Type   string
	Name   string
	Attrs  []string // the top-level attributes that differ, sorted
	Gone   bool     // the object is gone from the cloud
}

func (e *MovedError) Error() string {
	what := "its " + strings.Join(e.Attrs, ", ") + " changed"
	if e.Gone {
		what = "it is gone"
	}
	return fmt.Sprintf("refused to %s %s %s: the cloud moved since the plan (%s); nothing was changed for it, plan again", e.Action, e.Type, value.QuoteName(e.Name), what)
}

// IsMoved reports whether err is (or wraps) a *MovedError.
func IsMoved(err error) bool {
	var m *MovedError
	return errors.As(err, &m)
}

// precheck reads the object of change c (state resource name) and
// refuses when it is not what the plan read. A change without digests
// (a create, a plan of a destroy that read nothing) is not checked; an
// object gone before its destroy is left to the destroy.
func (x *execution) precheck(ctx context.Context, c *plan.Change, name string) error {
	if c.PriorDigests == nil || c.PriorType != "" {
		return nil
	}
	x.mu.Lock()
	sr := x.live.Resources[name]
	x.mu.Unlock()
	if sr == nil || sr.ProviderID == "" {
		return nil
	}
	o, err := x.e.read(ctx, sr)
	switch {
	case isNotFound(err) && c.Action == plan.Update:
		return &MovedError{Action: c.Action, Type: c.Type, Name: c.ResourceID, Gone: true}
	case isNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("read %s %q before changing it: %w", c.Type, c.ResourceID, err)
	}
	if attrs := x.movedByOthers(c, differing(c.PriorDigests, attrDigests(o))); len(attrs) > 0 {
		return &MovedError{Action: c.Action, Type: c.Type, Name: c.ResourceID, Attrs: attrs}
	}
	return nil
}

// movedByOthers leaves out of attrs those this apply may have moved
// itself: an attribute the configuration sets from a reference to
// another resource this plan changes (a load balancer's targets lose a
// server its replace destroyed; the planned value sets them again). Any
// other difference is someone else's.
func (x *execution) movedByOthers(c *plan.Change, attrs []string) []string {
	var out []string
	for _, a := range attrs {
		if !x.followsAChange(c, a) {
			out = append(out, a)
		}
	}
	return out
}

// followsAChange reports whether attribute attr of c is set from a
// reference to a resource the plan changes.
func (x *execution) followsAChange(c *plan.Change, attr string) bool {
	for path, refs := range c.References {
		if top, _, _ := strings.Cut(strings.SplitN(path, "[", 2)[0], "."); top != attr {
			continue
		}
		for _, ref := range strings.Split(refs, ", ") {
			for _, o := range x.p.Changes {
				if o.Action == plan.NoOp || o.ResourceID == c.ResourceID {
					continue
				}
				if ref == o.ResourceID || strings.HasPrefix(ref, o.ResourceID+".") || strings.HasPrefix(ref, o.ResourceID+"[") {
					return true
				}
			}
		}
	}
	return false
}
