package kinds

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

// Kind is one Kyku type on one cloud. Create must be idempotent by
// r.CloudName; Read, Delete and Lookup return provider.ErrNotFound
// (wrapped) when there is no such object.
type Kind interface {
	Create(ctx context.Context, r provider.Resource) (provider.Object, error)
	Read(ctx context.Context, id string) (provider.Object, error)
	// Update changes r's mutable properties in place; cur is the object as
	// read just before.
	Update(ctx context.Context, id string, r provider.Resource, cur provider.Object) (provider.Object, error)
	Delete(ctx context.Context, id string) error
	Lookup(ctx context.Context, cloudName string) (provider.Object, error)
}

// Set is the Kinds of one cloud. Build it with New; set Refused and
// CheckName before first use.
type Set struct {
	cloud string
	kinds map[string]Kind
	// Refused maps Kyku types the cloud does not have to the reason, a
	// lowercase phrase ("hetzner has no managed databases").
	Refused map[string]string
	// CheckName, when set, reports why the cloud would refuse cloudName
	// for a new object of type typ: Create fails with it, and Lookup
	// answers not found.
	CheckName func(typ, cloudName string) error
	// Fixed maps a type to the properties the cloud's API cannot change
	// on an existing object, each to why (a phrase naming the API):
	// Update refuses a change of one before its Kind is asked. It is the
	// cloud's side; what planning promises is the provider's
	// provider.TypeSchema.Rules (Planner), and the conformance suite's
	// agreement holds the two together.
	Fixed map[string]map[string]string

	locks sync.Map // type + "/" + cloud name → *sync.Mutex
}

// New returns the Set of cloud (its provider name, as errors say it).
func New(cloud string, kinds map[string]Kind) *Set {
	return &Set{cloud: cloud, kinds: kinds}
}

// Kind returns the Kind of typ, or an error naming a type the cloud
// refuses or does not know.
func (s *Set) Kind(typ string) (Kind, error) {
	if k, ok := s.kinds[typ]; ok {
		return k, nil
	}
	if reason, ok := s.Refused[typ]; ok {
		return nil, fmt.Errorf("%s (type %s)", reason, typ)
	}
	return nil, fmt.Errorf("%s provider has no resource type %q", s.cloud, typ)
}

// Create creates r, or returns the object its Kind finds already named
// r.CloudName. Creates of one type and cloud name take turns.
func (s *Set) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	k, err := s.Kind(r.Type)
	if err != nil {
		return provider.Object{}, err
	}
	if s.CheckName != nil {
		if err := s.CheckName(r.Type, r.CloudName); err != nil {
			return provider.Object{}, fmt.Errorf("create %s %q: %w", r.Type, r.Name, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return provider.Object{}, fmt.Errorf("create %s %q: %w", r.Type, r.Name, err)
	}
	mu, _ := s.locks.LoadOrStore(r.Type+"/"+r.CloudName, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	obj, err := k.Create(ctx, r)
	if err != nil {
		return provider.Object{}, fmt.Errorf("create %s %q: %w", r.Type, r.Name, err)
	}
	return obj, nil
}

// Read returns the object; provider.ErrNotFound when it is gone.
func (s *Set) Read(ctx context.Context, typ, id string) (provider.Object, error) {
	k, err := s.Kind(typ)
	if err != nil {
		return provider.Object{}, err
	}
	obj, err := k.Read(ctx, id)
	if err != nil {
		return provider.Object{}, fmt.Errorf("read %s %s: %w", typ, id, err)
	}
	return obj, nil
}

// Update reads the object, refuses a change to a property the cloud
// cannot change in place (Fixed; the engine replaces the resource
// instead), and has the Kind change the rest in place.
func (s *Set) Update(ctx context.Context, id string, r provider.Resource) (provider.Object, error) {
	k, err := s.Kind(r.Type)
	if err != nil {
		return provider.Object{}, err
	}
	cur, err := k.Read(ctx, id)
	if err != nil {
		return provider.Object{}, fmt.Errorf("update %s %q: %w", r.Type, r.Name, err)
	}
	fixed := s.Fixed[r.Type]
	for _, name := range slices.Sorted(maps.Keys(fixed)) {
		if have, known := cur.Properties[name]; known && !value.Equal(have, r.Properties[name]) {
			return provider.Object{}, fmt.Errorf("update %s %q: property %s cannot change in place: %s (replace the resource)", r.Type, r.Name, name, fixed[name])
		}
	}
	obj, err := k.Update(ctx, id, r, cur)
	if err != nil {
		return provider.Object{}, fmt.Errorf("update %s %q: %w", r.Type, r.Name, err)
	}
	return obj, nil
}

// Delete removes the object; provider.ErrNotFound when it is already gone.
func (s *Set) Delete(ctx context.Context, typ, id string) error {
	k, err := s.Kind(typ)
	if err != nil {
		return err
	}
	if err := k.Delete(ctx, id); err != nil {
		return fmt.Errorf("delete %s %s: %w", typ, id, err)
	}
	return nil
}

// Lookup finds the Kyku-managed object named cloudName; a name the cloud
// would refuse (CheckName) names none.
func (s *Set) Lookup(ctx context.Context, typ, cloudName string) (provider.Object, error) {
	k, err := s.Kind(typ)
	if err != nil {
		return provider.Object{}, err
	}
	if s.CheckName != nil {
		if err := s.CheckName(typ, cloudName); err != nil {
			return provider.Object{}, fmt.Errorf("lookup %s %q: no such name on %s (%v): %w", typ, cloudName, s.cloud, err, provider.ErrNotFound)
		}
	}
	obj, err := k.Lookup(ctx, cloudName)
	if err != nil {
		return provider.Object{}, fmt.Errorf("lookup %s %q: %w", typ, cloudName, err)
	}
	return obj, nil
}
