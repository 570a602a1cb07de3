package providertest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/value"
)

// Run runs the conformance suite. newProvider is called once per subtest
// and may return providers sharing one cloud: every cloud name the suite
// uses is unique to this Run, and every object it creates is deleted in a
// t.Cleanup.
func Run(t *testing.T, newProvider func(t *testing.T) provider.Provider, fx Fixtures) {
	t.Helper()
	if len(fx.Types) == 0 || fx.Resource == nil || fx.Mutate == nil {
		t.Fatal("providertest: Fixtures needs Types, Resource and Mutate")
	}
	s := &suite{newProvider: newProvider, fx: fx, prefix: fmt.Sprintf("kt%06x", rand.Uint32()&0xffffff)}
	t.Run("Zones", s.testZones)
	t.Run("EveryType", s.testEveryType)
	t.Run("IdempotentCreate", s.testIdempotentCreate)
	t.Run("Lookup", s.testLookup)
	t.Run("Update", s.testUpdate)
	t.Run("Delete", s.testDelete)
	t.Run("ConcurrentCreates", s.testConcurrentCreates)
	t.Run("ConcurrentCreatesSameName", s.testConcurrentSameName)
	t.Run("RefusesKykuNameAsReference", s.testRefusesKykuName)
	t.Run("CancelledContext", s.testCancelled)
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

// create creates r, fails the test on error, checks the basic promises of
// an Object, and schedules its deletion.
func (s *suite) create(t *testing.T, p provider.Provider, r provider.Resource) provider.Object {
	t.Helper()
	obj, err := p.Create(context.Background(), r)
	if err != nil {
		t.Fatalf("Create %s %q: %v", r.Type, r.Name, err)
	}
	s.cleanup(t, p, r.Type, obj.ID)
	checkObject(t, r, obj)
	return obj
}

func (s *suite) cleanup(t *testing.T, p provider.Provider, typ, id string) {
	t.Cleanup(func() {
		err := p.Delete(context.Background(), typ, id)
		if err != nil && !errors.Is(err, provider.ErrNotFound) {
			t.Errorf("cleanup: Delete %s %s: %v", typ, id, err)
		}
	})
}

// checkObject asserts what every Object returned for r must satisfy.
func checkObject(t *testing.T, r provider.Resource, obj provider.Object) {
	t.Helper()
	switch obj.ID {
	case "":
		t.Errorf("%s %q: empty provider ID", r.Type, r.Name)
	case r.Name, r.CloudName:
		t.Errorf("%s %q: provider ID %q is a Kyku or cloud name; IDs must be provider-native", r.Type, r.Name, obj.ID)
	}
	if obj.CloudName != r.CloudName {
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

func (s *suite) testZones(t *testing.T) {
	p := s.newProvider(t)
	ctx := context.Background()
	first, err := p.Zones(ctx)
	if err != nil {
		t.Fatalf("Zones: %v", err)
	}
	if len(first) == 0 {
		t.Fatal("Zones: empty list; auto-subnets need at least one zone")
	}
	seen := map[string]bool{}
	for _, z := range first {
		if z == "" || seen[z] {
			t.Errorf("Zones: empty or duplicate zone %q in %q", z, first)
		}
		seen[z] = true
	}
	second, err := p.Zones(ctx)
	if err != nil {
		t.Fatalf("Zones (again): %v", err)
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("Zones not stable between calls (-first +second):\n%s", diff)
	}
}

// testEveryType creates one object of each type, references resolved to
// the IDs of those created before it, and reads each back.
func (s *suite) testEveryType(t *testing.T) {
	p := s.newProvider(t)
	ctx := context.Background()
	zones, err := p.Zones(ctx)
	if err != nil {
		t.Fatalf("Zones: %v", err)
	}
	deps := Deps{IDs: map[string]string{}, Zones: zones}
	for _, typ := range s.fx.Types {
		name := "my-" + lower(typ)
		r := s.fx.Resource(typ, name, s.cloudName(name), deps)
		obj := s.create(t, p, r)
		got, err := p.Read(ctx, typ, obj.ID)
		if err != nil {
			t.Fatalf("Read %s %s after Create: %v", typ, obj.ID, err)
		}
		if got.ID != obj.ID {
			t.Errorf("Read %s %s: ID = %q", typ, obj.ID, got.ID)
		}
		checkObject(t, r, got)
		if ty, ok := schema.Lookup(typ); ok {
			for _, out := range ty.Outputs {
				if _, ok := got.Outputs[out]; !ok {
					t.Errorf("Read %s %s: output %q missing (schema promises it); got %v", typ, obj.ID, out, got.Outputs)
				}
			}
		}
		deps.IDs[typ] = obj.ID
	}
}

func (s *suite) testIdempotentCreate(t *testing.T) {
	p := s.newProvider(t)
	r := s.base("idem")
	first := s.create(t, p, r)
	second := s.create(t, p, r)
	if first.ID != second.ID {
		t.Fatalf("Create twice with cloud name %q: IDs %q and %q; want one object (idempotent create by name)",
			r.CloudName, first.ID, second.ID)
	}
}

func (s *suite) testLookup(t *testing.T) {
	p := s.newProvider(t)
	ctx := context.Background()
	r := s.base("look")
	obj := s.create(t, p, r)
	got, err := p.Lookup(ctx, r.Type, r.CloudName)
	if err != nil {
		t.Fatalf("Lookup %s %q: %v", r.Type, r.CloudName, err)
	}
	if got.ID != obj.ID {
		t.Errorf("Lookup %s %q: ID = %q, want %q", r.Type, r.CloudName, got.ID, obj.ID)
	}
	checkObject(t, r, got)
	missing := s.cloudName("never-created")
	if _, err := p.Lookup(ctx, r.Type, missing); !errors.Is(err, provider.ErrNotFound) {
		t.Errorf("Lookup %s %q (never created): err = %v, want ErrNotFound", r.Type, missing, err)
	}
}

func (s *suite) testUpdate(t *testing.T) {
	p := s.newProvider(t)
	ctx := context.Background()
	r := s.base("upd")
	obj := s.create(t, p, r)
	changed, prop := s.fx.Mutate(r)
	if value.Equal(changed.Properties[prop], r.Properties[prop]) {
		t.Fatalf("Fixtures.Mutate did not change property %q", prop)
	}
	up, err := p.Update(ctx, obj.ID, changed)
	if err != nil {
		t.Fatalf("Update %s %s (%s): %v", r.Type, obj.ID, prop, err)
	}
	if up.ID != obj.ID {
		t.Errorf("Update changed the ID: %q → %q; an in-place update keeps it", obj.ID, up.ID)
	}
	got, err := p.Read(ctx, r.Type, obj.ID)
	if err != nil {
		t.Fatalf("Read after Update: %v", err)
	}
	if !value.Equal(got.Properties[prop], changed.Properties[prop]) {
		t.Errorf("Read after Update: %s = %v, want %v", prop, value.Text(got.Properties[prop]), value.Text(changed.Properties[prop]))
	}
}

func (s *suite) testDelete(t *testing.T) {
	p := s.newProvider(t)
	ctx := context.Background()
	r := s.base("del")
	obj := s.create(t, p, r)
	if err := p.Delete(ctx, r.Type, obj.ID); err != nil {
		t.Fatalf("Delete %s %s: %v", r.Type, obj.ID, err)
	}
	if _, err := p.Read(ctx, r.Type, obj.ID); !errors.Is(err, provider.ErrNotFound) {
		t.Errorf("Read after Delete: err = %v, want ErrNotFound", err)
	}
	if _, err := p.Lookup(ctx, r.Type, r.CloudName); !errors.Is(err, provider.ErrNotFound) {
		t.Errorf("Lookup after Delete: err = %v, want ErrNotFound", err)
	}
	if err := p.Delete(ctx, r.Type, obj.ID); !errors.Is(err, provider.ErrNotFound) {
		t.Errorf("Delete again: err = %v, want ErrNotFound", err)
	}
	changed, _ := s.fx.Mutate(r)
	if _, err := p.Update(ctx, obj.ID, changed); !errors.Is(err, provider.ErrNotFound) {
		t.Errorf("Update after Delete: err = %v, want ErrNotFound", err)
	}
	// The name is free again: a new object, with a new ID.
	again := s.create(t, p, r)
	if again.ID == obj.ID {
		t.Errorf("Create after Delete reused ID %q; provider IDs must not be reused", obj.ID)
	}
}

func (s *suite) testConcurrentCreates(t *testing.T) {
	p := s.newProvider(t)
	const n = 16
	rs := make([]provider.Resource, n)
	for i := range rs {
		rs[i] = s.base(fmt.Sprintf("par-%d", i))
	}
	objs := make([]provider.Object, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range rs {
		wg.Go(func() { objs[i], errs[i] = p.Create(context.Background(), rs[i]) })
	}
	wg.Wait()
	ids := map[string]string{}
	for i, err := range errs {
		if err != nil {
			t.Errorf("concurrent Create %q: %v", rs[i].CloudName, err)
			continue
		}
		s.cleanup(t, p, rs[i].Type, objs[i].ID)
		checkObject(t, rs[i], objs[i])
		if other, dup := ids[objs[i].ID]; dup {
			t.Errorf("concurrent Create: %q and %q got the same ID %q", other, rs[i].CloudName, objs[i].ID)
		}
		ids[objs[i].ID] = rs[i].CloudName
	}
}

func (s *suite) testConcurrentSameName(t *testing.T) {
	p := s.newProvider(t)
	const n = 8
	r := s.base("race")
	objs := make([]provider.Object, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { objs[i], errs[i] = p.Create(context.Background(), r) })
	}
	wg.Wait()
	ids := map[string]bool{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("concurrent Create of one name: %v", err)
		}
		if !ids[objs[i].ID] {
			s.cleanup(t, p, r.Type, objs[i].ID)
		}
		ids[objs[i].ID] = true
	}
	if len(ids) != 1 {
		t.Errorf("%d concurrent Creates of cloud name %q made %d objects; want exactly one", n, r.CloudName, len(ids))
	}
}

// testRefusesKykuName builds the first fixture that has references with
// Kyku names in place of IDs: the provider must refuse it, permanently.
func (s *suite) testRefusesKykuName(t *testing.T) {
	p := s.newProvider(t)
	ctx := context.Background()
	zones, err := p.Zones(ctx)
	if err != nil {
		t.Fatalf("Zones: %v", err)
	}
	withIDs := Deps{IDs: map[string]string{}, Zones: zones}
	withNames := Deps{IDs: map[string]string{}, Zones: zones}
	for _, typ := range s.fx.Types {
		name := "ref-" + lower(typ)
		cloud := s.cloudName(name)
		bad := s.fx.Resource(typ, name, cloud, withNames)
		good := s.fx.Resource(typ, name, cloud, withIDs)
		if !value.Equal(bad.Properties, good.Properties) {
			obj, err := p.Create(ctx, bad)
			if err == nil {
				s.cleanup(t, p, typ, obj.ID)
				t.Fatalf("Create %s %q with Kyku names as references (%v) succeeded; want an error", typ, name, bad.Properties)
			}
			if provider.IsTransient(err) {
				t.Errorf("Create with a Kyku name as reference: transient error %v; retrying cannot help", err)
			}
			return
		}
		obj := s.create(t, p, good)
		withIDs.IDs[typ] = obj.ID
		withNames.IDs[typ] = name // a Kyku name where an ID belongs
	}
	t.Skip("no fixture type has references")
}

func (s *suite) testCancelled(t *testing.T) {
	p := s.newProvider(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := s.base("cancel")
	obj, err := p.Create(ctx, r)
	if err == nil {
		s.cleanup(t, p, r.Type, obj.ID)
		t.Fatal("Create with a cancelled context succeeded; want an error")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Create with a cancelled context: err = %v, want one wrapping context.Canceled", err)
	}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
