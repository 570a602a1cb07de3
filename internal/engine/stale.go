package engine

import (
	"context"
	"fmt"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
)

// read reads the cloud object of a state resource. A stale provider ID (a
// Kyku name recorded by an early version, or one the provider says is
// not valid) is never sent to the cloud: the object is found by its cloud
// name instead (the seed's "readState by name is the fallback"), and the
// Object returned carries its real ID. "Not found" means gone.
func (e *Engine) read(ctx context.Context, sr *state.Resource) (provider.Object, error) {
	if e.ownState(sr.Type) {
		var o provider.Object
		err := e.call(ctx, nil, func(ctx context.Context) error {
			var err error
			o, err = e.provider.ReadStored(ctx, sr.Type, sr.ProviderID, storedOf(sr))
			return err
		})
		return o, err
	}
	if e.staleID(sr.Type, sr.Name, sr.CloudName, sr.ProviderID) {
		return e.findByName(ctx, sr.Type, sr.Name, sr.CloudName)
	}
	var o provider.Object
	err := e.call(ctx, nil, func(ctx context.Context) error {
		var err error
		o, err = e.provider.Read(ctx, sr.Type, sr.ProviderID)
		return err
	})
	return o, err
}

// findByName looks an object up by its cloud name, then by its Kyku name
// (what an early version used as the cloud name).
func (e *Engine) findByName(ctx context.Context, typ, name, cloudName string) (provider.Object, error) {
	var o provider.Object
	err := e.call(ctx, nil, func(ctx context.Context) error {
		var err error
		if cloudName == "" {
			cloudName = name
		}
		if o, err = e.provider.Lookup(ctx, typ, cloudName); isNotFound(err) && cloudName != name {
			o, err = e.provider.Lookup(ctx, typ, name)
		}
		return err
	})
	return o, err
}

// providerID is the ID of a state resource as discovery found it: the real
// ID when a stale one was resolved by name.
func providerID(sr *state.Resource, objs map[string]provider.Object) string {
	if o, ok := objs[sr.Name]; ok && o.ID != "" {
		return o.ID
	}
	return sr.ProviderID
}

// adopt points ch at the object discovery found by name for a stale
// provider ID, and says so in its reason; applying the plan records the
// real ID (see recordUnchanged for a no-op).
func adopt(ch *plan.Change, sr *state.Resource, objs map[string]provider.Object) {
	o, ok := objs[sr.Name]
	adoptObject(ch, sr, o, ok)
}

// adoptObject is adopt given what discovery found for sr (found false: nothing).
func adoptObject(ch *plan.Change, sr *state.Resource, o provider.Object, found bool) {
	if !found || o.ID == "" || o.ID == sr.ProviderID {
		return
	}
	ch.ProviderID = o.ID
	if o.CloudName != "" {
		ch.CloudName = o.CloudName
	}
	ch.Reason = fmt.Sprintf("stale provider ID %q: found by name (ID %s)", sr.ProviderID, o.ID)
}
