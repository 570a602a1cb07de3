package engine

import (
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
)

// A type whose provider keeps its own state (provider.TypeSchema.OwnState,
// a Terraform provider's) has its form of each object kept in state and
// the provider's plan kept in the plan, both handed back with each call.

// ownState reports whether typ's provider keeps its own state of its
// objects.
func (e *Engine) ownState(typ string) bool {
	return e.provider.Schema(typ).OwnState
}

// storedOf is what state keeps of sr for its provider.
func storedOf(sr *state.Resource) provider.Stored {
	return provider.Stored{SchemaVersion: sr.SchemaVersion, Private: sr.Private, Attributes: sr.Outputs}
}

// toProvider is the provider's form of a plan's Planned.
func toProvider(pp *plan.Planned) *provider.Planned {
	if pp == nil {
		return nil
	}
	return &provider.Planned{
		PriorState: pp.PriorState, PriorPrivate: pp.PriorPrivate, State: pp.State, Private: pp.Private,
		SchemaVersion: pp.SchemaVersion, ConfigKnown: pp.ConfigKnown, Sensitive: pp.Sensitive, Values: pp.Values,
	}
}

// recordStored copies what a provider keeps of obj into sr.
func recordStored(sr *state.Resource, obj provider.Object) {
	if obj.Stored == nil {
		return
	}
	sr.SchemaVersion, sr.Private = obj.Stored.SchemaVersion, obj.Stored.Private
}
