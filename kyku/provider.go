package kyku

import (
	"context"
	"errors"
	"os"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/sim"
)

// Provider is a cloud Kyku manages resources in. Build one with
// NewProvider or SimProvider; it is safe for concurrent use.
type Provider struct {
	p provider.Provider
}

// registry lists the providers this package carries.
var registry = provider.Registry{
	"sim": sim.Factory,
	"aws": aws.New,
}

// NewProvider builds the provider called name from its settings (what a
// config's provider block holds; see Config.ProviderSettings):
//
//   - "sim": the offline simulator; settings dir, latency, failRate, fail,
//     seed (defaults from KYKU_SIM_*; the cloud is .kyku-state/sim without dir).
//   - "aws": settings region, profile; credentials from the AWS SDK's
//     default chain.
func NewProvider(ctx context.Context, name string, settings map[string]string) (*Provider, error) {
	p, err := registry.New(ctx, name, settings, os.Getenv)
	if err != nil {
		return nil, err
	}
	return &Provider{p: p}, nil
}

// SimProvider is the simulator with its cloud in dir (one JSON file per
// object), no latency and no faults.
func SimProvider(dir string) (*Provider, error) {
	p, err := sim.New(sim.Options{Dir: dir})
	if err != nil {
		return nil, err
	}
	return &Provider{p: p}, nil
}

// Name is the provider's name ("sim", "aws").
func (p *Provider) Name() string { return p.p.Name() }

var errNoProvider = errors.New("kyku: no provider given (set the options' Provider: NewProvider or SimProvider)")

func (p *Provider) get() (provider.Provider, error) {
	if p == nil || p.p == nil {
		return nil, errNoProvider
	}
	return p.p, nil
}
