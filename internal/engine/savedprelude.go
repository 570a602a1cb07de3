package engine

import (
	"errors"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
)

// savedPrelude is what every apply of a saved plan does before planning
// it again, under the whole-state lock or under leases: it holds p to st
// and cfg (checkSaved; under leases its objects' versions stand for the
// serial), puts cfg in place of a configuration the plan file keeps as
// descriptions, takes p's write-only values from cfg, and refuses a plan
// destroying everything without ApplyOptions.AllowDestroyAll.
func (e *Engine) savedPrelude(p *plan.Plan, st *state.File, cfg *config.Config, opts ApplyOptions, leased bool) (*plan.Plan, error) {
	if err := e.checkSaved(p, st, cfg, leased); err != nil {
		return nil, err
	}
	if p.Config != nil && (p.Config.Terraform || p.Config.Expressions) {
		// A plan file keeps a Terraform configuration's expressions (and
		// a kyku.yaml's templates computing with resources) as
		// descriptions: the configuration read again (checkSaved held it
		// to the plan's hashes) is what it planned.
		if cfg == nil && p.Config.Terraform {
			return nil, errors.New("a saved plan of a Terraform configuration is applied with that configuration: give the directory it was planned from (-c DIR), with the same variables")
		}
		if cfg == nil {
			return nil, errors.New("a saved plan of a kyku.yaml whose templates compute with resources' values is applied with that configuration: give the configuration it was planned from (-c PATH), with the same variables")
		}
		q := *p
		q.Config = cfg
		p = &q
	}
	// A plan file keeps no write-only values: cfg gives them again.
	p, err := p.WithWriteOnly(cfg)
	if err != nil {
		return nil, err
	}
	if err := guardDestroyAll(p, opts.AllowDestroyAll); err != nil {
		return nil, err
	}
	return p, nil
}
