package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/graph"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
)

// Plan computes the changes that would make the cloud match cfg. It takes
// the state lock (to read a consistent state) and writes nothing: with no
// state yet, the plan records the deploy prefix it chose (StateExists
// false), and the apply of the plan creates the state with that prefix.
func (e *Engine) Plan(ctx context.Context, cfg *config.Config) (*plan.Plan, error) {
	return e.PlanWith(ctx, cfg, PlanOptions{})
}

// PlanWith is Plan with options (--target).
func (e *Engine) PlanWith(ctx context.Context, cfg *config.Config, opts PlanOptions) (*plan.Plan, error) {
	if err := whole(cfg); err != nil {
		return nil, err
	}
	st, unlock, err := e.locked(ctx, "plan", false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := e.foldOrphans(ctx, st); err != nil {
		return nil, err
	}
	if st, err = e.foldAnswers(ctx, cfg, st, false); err != nil { // answers.go
		return nil, err
	}
	exists := st != nil
	if st, err = e.draft(st); err != nil {
		return nil, err
	}
	p, err := e.plan(ctx, cfg, st, exists, opts)
	if err == nil && exists {
		e.recordObjects(p, st)
	}
	return p, err
}

// PlanDestroy computes a plan that destroys everything in state.
func (e *Engine) PlanDestroy(ctx context.Context) (*plan.Plan, error) {
	st, unlock, err := e.locked(ctx, "plan", false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if st == nil {
		return &plan.Plan{FormatVersion: plan.FormatVersion, Environment: e.opts.Env, Provider: e.provider.Name(), CreatedAt: e.opts.Now().UTC(), Destroy: true, Backend: e.describeBackend()}, nil
	}
	return e.planDestroy(ctx, st)
}

// Graph injects cfg's auto-subnets (zones come from the provider, asked
// only when some Vpc wants them) and returns its dependency graph with each
// resource's level (the seed's buildGraph). It is idempotent on an already
// prepared config, and needs no backend.
func (e *Engine) Graph(ctx context.Context, cfg *config.Config) (*graph.Graph, map[string]int, error) {
	if config.NeedsZones(cfg) { // one provider call saved when no Vpc asks for auto-subnets
		var zones []string
		err := e.call(ctx, nil, func(ctx context.Context) error {
			var err error
			zones, err = e.provider.Zones(ctx)
			return err
		})
		if err != nil {
			return nil, nil, fmt.Errorf("list zones: %w", err)
		}
		if err := config.InjectAutoSubnets(cfg, zones); err != nil {
			return nil, nil, err
		}
	}
	g := config.BuildGraph(cfg)
	levels, err := g.Levels()
	var cycle *graph.CycleError
	if errors.As(err, &cycle) && len(cycle.Path) > 0 {
		// Said where the first resource on it is declared.
		if r := cfg.Resource(cycle.Path[0]); r != nil && r.Pos.Line > 0 {
			return nil, nil, diag.Diagnostics{{Pos: r.Pos, Message: cycle.Error()}}
		}
	}
	if err != nil {
		return nil, nil, err
	}
	return g, levels, nil
}

// describeBackend names the backend for a plan ("" without one: Graph).
func (e *Engine) describeBackend() string {
	if e.backend == nil {
		return ""
	}
	return e.backend.Describe()
}

// plan computes the plan of cfg against st; exists says whether st is
// stored (false: an in-memory draft, see draft). Its steps are planning's.
func (e *Engine) plan(ctx context.Context, cfg *config.Config, st *state.File, exists bool, opts PlanOptions) (*plan.Plan, error) {
	x := newPlanning(e, cfg, st, opts)
	defer x.stopReads()
	for _, step := range []func(context.Context) error{x.check, x.choose, x.read} {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	for {
		x.start(exists)
		if err := x.planResources(ctx); err != nil {
			return nil, err
		}
		// What touched resources read from is read before they are
		// planned: when the prediction missed some, plan again with them.
		more := x.unreadUpstream()
		if len(more) == 0 {
			break
		}
		if err := x.readNames(ctx, more); err != nil {
			return nil, err
		}
		x.again()
	}
	destroys := x.refuse()
	x.p.Reads = x.readsOf()
	return x.finish(ctx, destroys)
}

// planDestroy plans the destroy of everything st holds.
func (e *Engine) planDestroy(ctx context.Context, st *state.File) (*plan.Plan, error) {
	p := &plan.Plan{
		FormatVersion: plan.FormatVersion,
		Environment:   e.opts.Env,
		Provider:      e.provider.Name(),
		CreatedAt:     e.opts.Now().UTC(),
		Lineage:       st.Metadata.Lineage,
		Serial:        st.Metadata.Serial,
		Prefix:        st.Metadata.Prefix,
		StateExists:   true,
		Destroy:       true,
		Backend:       e.describeBackend(),
	}
	p.Changes = e.destroyChanges(st, func(string) bool { return false }, nil, nil, nil, nil)
	p.OutputChanges = outputChanges(nil, st, nil)
	p.Secrets = stateSecrets(st, p.Changes)
	var diags diag.Diagnostics
	refuseProtectedDestroys(&diags, st, nil, p.Changes)
	if err := diags.Err(); err != nil {
		return nil, err
	}
	if err := refuseInterruptedDestroy(st); err != nil { // forgetintent.go
		return nil, err
	}
	if err := e.ownTypes(ctx, p); err != nil {
		return nil, err
	}
	e.owners(p)
	p.Count()
	return p, nil
}
