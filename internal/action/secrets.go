package action

import (
	"context"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/progress"
)

// The run scrubs what it prints (the log, its annotations and the job
// summary) with the secrets of every configuration it loads and every plan
// it is handed, as package review scrubs the comments: error text may
// quote a sensitive value. The runner's log masks (::add-mask::, see
// maskGiven) cover only the log, and only values given from outside.

// learn adds the secrets of cfg and p (either may be nil).
func (r *run) learn(cfg *config.Config, p *plan.Plan) { r.secrets.Learn(cfg, p) }

// known is the secrets learnt so far.
func (r *run) known() progress.Secrets { return r.secrets.Known() }

// configAt is the configuration at ref (r.src.at), its secrets learnt;
// refused when its state is local (localstate.go).
func (r *run) configAt(ctx context.Context, ref string) (*config.Config, error) {
	cfg, err := r.src.at(ctx, ref)
	r.learn(cfg, nil)
	if err == nil {
		err = r.checkLocalState(cfg, ref)
	}
	if err != nil {
		return nil, err
	}
	return cfg, nil
}

// checkoutConfig is the checkout's configuration (r.src.checkout), its
// secrets learnt; refused when its state is local.
func (r *run) checkoutConfig(ctx context.Context) (*config.Config, error) {
	cfg, err := r.src.checkout(ctx)
	r.learn(cfg, nil)
	if err == nil {
		err = r.checkLocalState(cfg, "the checkout")
	}
	if err != nil {
		return nil, err
	}
	return cfg, nil
}
