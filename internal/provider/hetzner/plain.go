package hetzner

import (
	"context"
	"fmt"

	"github.com/kyku/action/internal/provider"
)

// What the Hetzner provider has nothing to do for, answered plainly.

// CheckName refuses nothing: the provider declares no name rules (the API
// judges a name when the object is made).
func (p *Provider) CheckName(string, string) error { return nil }

// ValidateConfigs refuses nothing: there is no plugin to ask
// (CheckResources and CheckCloud check everything).
func (p *Provider) ValidateConfigs(context.Context, []provider.Desired) ([]provider.Refusal, error) {
	return nil, nil
}

// CheckReads refuses nothing: what a configuration reads of Kyku's own
// types is checked as it is read (config's references).
func (p *Provider) CheckReads(context.Context, []provider.Desired, map[string]any) ([]provider.Refusal, error) {
	return nil, nil
}

// ReadStored is Read: the provider keeps no form of its objects but
// Hetzner's.
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

// ReadData: the Hetzner provider has no data sources.
func (p *Provider) ReadData(_ context.Context, typ string, _ map[string]any) (map[string]any, []string, error) {
	return nil, nil, fmt.Errorf("hetzner has no data source %s: %w", typ, provider.ErrNotSupported)
}

// PlanData: the Hetzner provider has no data sources.
func (p *Provider) PlanData(ctx context.Context, typ string, props map[string]any) (map[string]any, []string, error) {
	return p.ReadData(ctx, typ, props)
}

// Stop does nothing: every request ends when its context does.
func (p *Provider) Stop(context.Context) error { return nil }

// Close does nothing: the API client holds nothing to release.
func (p *Provider) Close() error { return nil }

// KeepsAnswers: hetzner's creates find their object by cloud name; no
// journal keeper keeps their answers.
func (p *Provider) KeepsAnswers(string) bool { return false }

// Answered: hetzner keeps no create's answer (KeepsAnswers).
func (p *Provider) Answered(_ context.Context, typ string, _ []byte) (provider.Object, error) {
	return provider.Object{}, fmt.Errorf("hetzner keeps no answer of a create of %s: %w", typ, provider.ErrNotSupported)
}
