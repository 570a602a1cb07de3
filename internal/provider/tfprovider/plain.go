package tfprovider

import (
	"context"

	"github.com/kyku/action/internal/provider"
)

// What a Terraform provider has nothing to do for, answered plainly: its
// own checks are ValidateConfigs and PlanChange, its objects have no cloud
// name of Kyku's making, and it reads them one at a time.

// CheckResources refuses nothing: a Terraform provider's resources are
// checked against its schema by ValidateConfigs.
func (p *Provider) CheckResources([]provider.Desired) []provider.Refusal { return nil }

// CheckName refuses nothing: Kyku gives a Terraform provider's objects no
// cloud name.
func (p *Provider) CheckName(string, string) error { return nil }

// ValidID is true: a Terraform provider's IDs are its own to judge.
func (p *Provider) ValidID(string, string) bool { return true }

// CheckCloud refuses nothing: what the cloud offers is the provider's to
// say when it plans.
func (p *Provider) CheckCloud(context.Context, []provider.Desired) ([]provider.Refusal, error) {
	return nil, nil
}

// CheckReads refuses nothing alone: the Router checks what a
// configuration reads against every plugin's schema (Router.CheckReads).
func (p *Provider) CheckReads(context.Context, []provider.Desired, map[string]any) ([]provider.Refusal, error) {
	return nil, nil
}

// Rename leaves the object as it is: a moved resource keeps its object,
// and state moves alone.
func (p *Provider) Rename(_ context.Context, id string, r provider.Resource) (provider.Object, error) {
	return provider.Object{ID: id, CloudName: r.CloudName}, nil
}

// ReadMany reads nothing: the engine reads each object with ReadStored.
func (p *Provider) ReadMany(context.Context, string, []provider.Ref) (map[provider.Ref]provider.Object, error) {
	return nil, nil
}
