package providertest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

// Run runs the conformance suite against the provider newProvider
// builds: the contract every provider keeps (contract.go), then, for a
// provider of Kyku's types, what those promise besides (kyku.go) and,
// with Fixtures.Agreement, its rules held to its cloud (agreement.go).
// newProvider is called once per subtest and may return providers sharing
// one cloud: every cloud name the suite uses is unique to this Run, and
// every object it creates is deleted in a t.Cleanup.
func Run(t *testing.T, newProvider func(t *testing.T) provider.Provider, fx Fixtures) {
	t.Helper()
	if len(fx.Types) == 0 || fx.Resource == nil || fx.Mutate == nil {
		t.Fatal("providertest: Fixtures needs Types, Resource and Mutate")
	}
	s := &suite{newProvider: newProvider, fx: fx, prefix: fmt.Sprintf("kt%06x", rand.Uint32()&0xffffff)}
	t.Run("Schema", s.testSchema)
	t.Run("Checks", s.testChecks)
	t.Run("PlanAndApply", s.testPlanAndApply)
	t.Run("EveryType", s.testEveryType)
	t.Run("Import", s.testImport)
	t.Run("ReadMany", s.testReadMany)
	t.Run("DataSources", s.testDataSources)
	t.Run("ConcurrentCreates", s.testConcurrentCreates)
	t.Run("CancelledContext", s.testCancelled)
	t.Run("Stop", s.testStop)
	if newProvider(t).Schema(fx.Types[0]).OwnState {
		if fx.Agreement != nil {
			t.Error("providertest: an Agreement holds the rules of Kyku's types; a provider that keeps its own state plans itself")
		}
		return
	}
	t.Run("Zones", s.testZones)
	t.Run("IdempotentCreate", s.testIdempotentCreate)
	t.Run("Lookup", s.testLookup)
	t.Run("Update", s.testUpdate)
	t.Run("Delete", s.testDelete)
	t.Run("ConcurrentCreatesSameName", s.testConcurrentSameName)
	t.Run("RefusesKykuNameAsReference", s.testRefusesKykuName)
	if fx.Agreement != nil {
		t.Run("Agreement", fx.Agreement.run)
	}
}

type suite struct {
	newProvider func(t *testing.T) provider.Provider
	fx          Fixtures
	prefix      string
	seq         atomic.Int64
}

// cloudName returns a cloud name unique to this Run for Kyku name name.
func (s *suite) cloudName(name string) string {
	return fmt.Sprintf("%s-%d-%s", s.prefix, s.seq.Add(1), name)
}

// base builds a resource of the first (reference-free) type.
func (s *suite) base(name string) provider.Resource {
	return s.fx.Resource(s.fx.Types[0], name, s.cloudName(name), Deps{IDs: map[string]string{}})
}

// create makes r as the engine would (planned first, for a type whose
// provider keeps its own state), fails the test on error, checks the
// basic promises of an Object, and schedules its deletion.
func (s *suite) create(t *testing.T, p provider.Provider, r provider.Resource) provider.Object {
	t.Helper()
	obj, err := s.make(context.Background(), p, r)
	if err != nil {
		t.Fatalf("Create %s %q: %v", r.Type, r.Name, err)
	}
	s.cleanup(t, p, r.Type, obj)
	checkObject(t, p, r, obj)
	return obj
}

// make plans r as a create (PlanChange) for a type with OwnState and has
// Create carry the plan out; any other type is created as it is.
func (s *suite) make(ctx context.Context, p provider.Provider, r provider.Resource) (provider.Object, error) {
	if p.Schema(r.Type).OwnState {
		res, err := p.PlanChange(ctx, provider.ChangeRequest{Resource: r})
		switch {
		case err != nil:
			return provider.Object{}, fmt.Errorf("plan: %w", err)
		case res.Planned == nil:
			return provider.Object{}, fmt.Errorf("plan: no plan (refusals %v)", res.Refusals)
		}
		r.Planned = res.Planned
	}
	return p.Create(ctx, r)
}

// read reads obj back as the engine does: from what state keeps of it
// (ReadStored) for a type with OwnState, by ID (Read) otherwise.
func read(ctx context.Context, p provider.Provider, typ string, obj provider.Object) (provider.Object, error) {
	if p.Schema(typ).OwnState {
		return p.ReadStored(ctx, typ, obj.ID, stored(obj))
	}
	return p.Read(ctx, typ, obj.ID)
}

// remove deletes obj as the engine does (DeleteStored, or Delete).
func remove(ctx context.Context, p provider.Provider, typ string, obj provider.Object) error {
	if p.Schema(typ).OwnState {
		return p.DeleteStored(ctx, typ, obj.ID, stored(obj), nil)
	}
	return p.Delete(ctx, typ, obj.ID)
}

// stored is what state would keep of obj.
func stored(obj provider.Object) provider.Stored {
	if obj.Stored == nil {
		return provider.Stored{Attributes: obj.Outputs}
	}
	return *obj.Stored
}

func (s *suite) cleanup(t *testing.T, p provider.Provider, typ string, obj provider.Object) {
	t.Cleanup(func() {
		err := remove(context.Background(), p, typ, obj)
		if err != nil && !errors.Is(err, provider.ErrNotFound) {
			t.Errorf("cleanup: delete %s %s: %v", typ, obj.ID, err)
		}
	})
}

// checkObject asserts what every Object returned for r must satisfy: a
// provider-native ID, "id" among the outputs, every property of r; for
// Kyku's types, r's cloud name; for a type with OwnState, the form state
// keeps.
func checkObject(t *testing.T, p provider.Provider, r provider.Resource, obj provider.Object) {
	t.Helper()
	switch obj.ID {
	case "":
		t.Errorf("%s %q: empty provider ID", r.Type, r.Name)
	case r.Name, r.CloudName:
		t.Errorf("%s %q: provider ID %q is a Kyku or cloud name; IDs must be provider-native", r.Type, r.Name, obj.ID)
	}
	if p.Schema(r.Type).OwnState {
		if obj.Stored == nil {
			t.Errorf("%s %q: no Stored form, which state keeps of a type with OwnState", r.Type, r.Name)
		}
	} else if obj.CloudName != r.CloudName {
		t.Errorf("%s %q: CloudName = %q, want %q", r.Type, r.Name, obj.CloudName, r.CloudName)
	}
	if got := obj.Outputs["id"]; got != obj.ID {
		t.Errorf("%s %q: Outputs[id] = %v, want the ID %q", r.Type, r.Name, got, obj.ID)
	}
	checkProps(t, r, obj)
}

// checkProps asserts that obj holds every property of r (a provider may
// report more, e.g. defaults, but not different values).
func checkProps(t *testing.T, r provider.Resource, obj provider.Object) {
	t.Helper()
	got := make(map[string]any, len(r.Properties))
	for k := range r.Properties {
		if v, ok := obj.Properties[k]; ok {
			got[k] = value.Normalize(v)
		}
	}
	want := value.Normalize(r.Properties)
	if r.Properties == nil {
		want = map[string]any{}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s %q: properties differ from the request (-want +got):\n%s", r.Type, r.Name, diff)
	}
}
