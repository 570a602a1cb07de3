package engine

import "time"

// PlanOptions tune one plan.
type PlanOptions struct {
	// Targets limits the plan to these resources (addresses; a name with
	// instances means all of them) and what they depend on. A target in
	// state but not in the configuration is destroyed.
	Targets []string
	// Exclude limits the plan to every resource but these (addresses, as
	// Targets) and what depends on them, as OpenTofu's -exclude; not with
	// Targets.
	Exclude []string
	// Limited says Targets are a saved plan's changes (a leased apply
	// plans again only what it changes), not its user's targeting: the
	// outputs it leaves as they are are KeptOutputs, the saved plan's,
	// rather than those reading what Targets leave out.
	Limited     bool
	KeptOutputs []string
	// AllowDestroyAll lets a plan destroy every resource in state because
	// the configuration has none (plan.Plan.DestroysAll); without it such
	// a plan is refused with a *DestroyAllError.
	AllowDestroyAll bool
	// Replace names resources (addresses; a name with instances means all
	// of them) to replace although nothing forces it, as Terraform's
	// -replace: a broken or tainted object is destroyed and created anew.
	// Each must be a managed resource of the configuration; one not yet
	// in state is created anyway.
	Replace []string
	// Timestamp, when set, is the plan's CreatedAt: the time a Terraform
	// configuration's plantimestamp() read when it was expanded for this
	// plan. Zero: the engine's clock.
	Timestamp time.Time
	// Refresh says what the plan reads from the cloud (reads.go): what
	// the change touches (default), everything, or nothing.
	Refresh RefreshMode

	// createdAt, when set, is the plan's CreatedAt (planning a saved plan
	// again: it is still the plan made then).
	createdAt time.Time
}

// planOptions are the PlanOptions of an apply that plans (no saved plan),
// the same under the whole-state lock and under leases.
func (o ApplyOptions) planOptions() PlanOptions {
	return PlanOptions{Targets: o.Targets, Exclude: o.Exclude, Replace: o.Replace, AllowDestroyAll: o.AllowDestroyAll, Timestamp: o.Timestamp, Refresh: o.Refresh}
}
