package sim

import (
	"context"
	"fmt"

	"github.com/kyku/action/internal/provider"
)

// What the simulator has nothing to do for, answered plainly.

// ValidateConfigs refuses nothing: the simulator has no plugin to ask
// (CheckResources checks everything).
func (p *Provider) ValidateConfigs(context.Context, []provider.Desired) ([]provider.Refusal, error) {
	return nil, nil
}

// CheckReads refuses nothing: what a configuration reads of the simulator
// is checked as it is read (config's references).
func (p *Provider) CheckReads(context.Context, []provider.Desired, map[string]any) ([]provider.Refusal, error) {
	return nil, nil
}

// CheckCloud refuses nothing: the simulated cloud offers every size and
// image CheckResources accepts.
func (p *Provider) CheckCloud(context.Context, []provider.Desired) ([]provider.Refusal, error) {
	return nil, nil
}

// ReadStored is Read: the simulator keeps no form of its objects but its
// own.
func (p *Provider) ReadStored(ctx context.Context, typ, id string, _ provider.Stored) (provider.Object, error) {
	return p.Read(ctx, typ, id)
}

// DeleteStored is Delete (see ReadStored).
func (p *Provider) DeleteStored(ctx context.Context, typ, id string, _ provider.Stored, _ *provider.Planned) error {
	return p.Delete(ctx, typ, id)
}

// Import is Read: an object is imported by its provider ID.
func (p *Provider) Import(ctx context.Context, typ, id string) (provider.Object, error) {
	return p.Read(ctx, typ, id)
}

// ReadMany reads nothing: the plain simulator is read one object at a
// time (Bulk lists instead).
func (p *Provider) ReadMany(context.Context, string, []provider.Ref) (map[provider.Ref]provider.Object, error) {
	return nil, nil
}

// ReadData: the simulator has no data sources.
func (p *Provider) ReadData(_ context.Context, typ string, _ map[string]any) (map[string]any, []string, error) {
	return nil, nil, fmt.Errorf("sim has no data source %s: %w", typ, provider.ErrNotSupported)
}

// PlanData: the simulator has no data sources.
func (p *Provider) PlanData(ctx context.Context, typ string, props map[string]any) (map[string]any, []string, error) {
	return p.ReadData(ctx, typ, props)
}

// Stop does nothing: every simulated call ends when its context does.
func (p *Provider) Stop(context.Context) error { return nil }

// KeepsAnswers: sim's creates find their object by cloud name; no
// journal keeper keeps their answers.
func (p *Provider) KeepsAnswers(string) bool { return false }

// Answered: sim keeps no create's answer (KeepsAnswers).
func (p *Provider) Answered(_ context.Context, typ string, _ []byte) (provider.Object, error) {
	return provider.Object{}, fmt.Errorf("sim keeps no answer of a create of %s: %w", typ, provider.ErrNotSupported)
}
