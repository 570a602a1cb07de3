package engine

import (
	"errors"

	"github.com/kyku/action/internal/noun"
	"github.com/kyku/action/internal/plan"
)

// DestroyAllError refuses a plan that would destroy every resource in
// state because the configuration has none (plan.Plan.DestroysAll): an
// empty or truncated configuration must not empty the cloud by accident.
// Nothing was changed. Plan or apply with AllowDestroyAll to mean it, or
// destroy explicitly.
type DestroyAllError struct {
	Resources int // the resources the plan would destroy
}

func (e *DestroyAllError) Error() string {
	return "refusing a plan that destroys " + e.Every() + " in state because the configuration has none " +
		"(an empty or truncated configuration?); nothing was changed: allow it explicitly, or destroy explicitly"
}

// Every names what the plan would destroy: "all 3 resources", "the 1
// resource".
func (e *DestroyAllError) Every() string {
	if e.Resources == 1 {
		return "the 1 resource"
	}
	return "all " + noun.Count(e.Resources, "resource")
}

// IsDestroyAll reports whether err is a *DestroyAllError.
func IsDestroyAll(err error) bool {
	var d *DestroyAllError
	return errors.As(err, &d)
}

// guardDestroyAll refuses p when it destroys everything and allow is false.
func guardDestroyAll(p *plan.Plan, allow bool) error {
	if allow || !p.DestroysAll() {
		return nil
	}
	return &DestroyAllError{Resources: p.Counters.Destroy}
}
