package config

import (
	"context"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/value"
)

// Known is what is known of a configuration's resources before it is
// planned (package engine's Known): their attributes in state and the data
// sources read so far.
type Known interface {
	// Lookup answers a reference from the data sources read and the state.
	Lookup(value.Ref) (any, bool)
	// ReadData reads the data sources of cfg it can read now, and says
	// how many it read.
	ReadData(ctx context.Context, cfg *Config) (int, error)
	// Failures are why the data sources it could not read failed.
	Failures() diag.Diagnostics
}

// Expand is how a partial configuration (Config.Pending) is made whole.
type Expand func(ctx context.Context, known Known) (*Config, error)

// Complete is c made whole with what known holds (Config.Pending), or c
// itself when it is whole.
func (c *Config) Complete(ctx context.Context, known func(context.Context) (Known, error)) (*Config, error) {
	if c == nil || c.Pending == nil {
		return c, nil
	}
	k, err := known(ctx)
	if err != nil {
		return nil, err
	}
	return c.Pending(ctx, k)
}
