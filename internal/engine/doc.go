// Package engine owns Kyku's lifecycle (the seed's KykuEngine): config →
// auto-subnets → graph → state → discovery → diff → plan → apply → persist,
// and destroy, refresh and outputs.
//
// Durability: while applying, every finished change is appended to the
// backend's journal before anything that depends on it starts; the journal
// is folded into the state (serial + 1) at the end of the run, or by the
// next run after a crash. A provider create is idempotent by cloud name, so
// a crash between a cloud call and its journal entry leaves nothing
// duplicated. Plan, PlanDestroy, ReadState, Outputs and a report-only
// Refresh take the lock but write nothing (a crash's journal is folded in
// memory only); Apply and Destroy apply nothing unless ApplyOptions says
// so (AutoApprove or Confirm).
//
// Moves, imports and targets (moves.go): a plan applies the config's moved
// entries to a view of the state first, so everything after it sees the
// new names; an apply journals each move (state.OpMove) before any other
// change runs, then has the provider rename the cloud object
// (provider.Applier.Rename). An import is read at plan time and recorded, then
// updated, at apply. --target limits a plan to some resources and what they
// depend on. Import, StateMove and StateRemove (statecmds.go) repair state
// by hand under the lock, with a backup.
//
// A plan is a planning (planning.go), its steps as methods: check the
// configuration, choose what to plan, read the cloud, plan the resources
// level by level (planlevels.go), refuse what apply could not carry out
// and finish the plan (planfinish.go).
//
// The provider plans (support.go, planchange.go): its CheckResources
// refuses configured values before any cloud call (and again once
// auto-subnets are injected), its CheckCloud once per plan; then one
// path plans every resource, of Kyku's types or a Terraform provider's,
// changed or not, the resources of one level together: PlanChange from
// the object as discovery read it (none for a create) to its
// configuration. Its planned values against the prior ones are the
// property changes, its forced replaces (a rule of the type, what the
// values force) or --replace make a replace, no difference a no-op.
// Refusals are diagnostics at the configuration's positions; reasons
// travel in plan.PropChange.ReplaceReason.
//
// A replace is carried out destroy-before-create, or create-before-destroy
// (plan.Change.ReplaceOrder, shown in every rendering) when its provider
// asks (provider.ChangePlan.CreateBeforeDestroy: the cloud does not delete
// the object while used) and resources that stay use the object: the
// replacement is made under another cloud name, they are updated to it,
// then the object, kept in state as deposed (plan.DeposedName) until
// then, is destroyed; what such a replacement depends on that is replaced
// too is made first as well (replaces.go, execute.go).
//
// A type whose provider keeps its own state (a Terraform provider's;
// provider.TypeSchema.OwnState; stored.go) is read from what state keeps
// of it, and its provider's plan (plan.Change.Planned) is what apply
// hands back. References read its planned values; what its schema marks
// sensitive stays masked through references. Data sources are read at plan time, unless their
// configuration refers to values not yet known or they depend on a
// resource with changes pending: then they are read during apply, after
// it (a plan.Read change; data.go). Their values travel in memory with
// the plan (plan.Plan.Data).
//
// Concurrency: an Engine may be used by one operation at a time per
// environment (the backend lock enforces it across processes). Within an
// operation, changes run on at most Options.Parallelism workers; a change
// starts as soon as the changes it depends on have finished and are
// journaled, and its own journal append runs after it gave its worker back,
// so that appends waiting together share one commit.
package engine
