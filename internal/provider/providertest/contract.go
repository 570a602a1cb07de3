package providertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/kyku/action/internal/diff"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/value"
)

// The contract every provider keeps, Kyku's types or a Terraform
// provider's, driven the way the engine drives it: a type's schema, its
// checks, a plan carried out and read back, imports, bulk reads, data
// sources, concurrency, cancellation and stopping.

// testSchema: every type is the provider's own; a type whose provider
// keeps its own state has no rules (its plans say what is replaced).
func (s *suite) testSchema(t *testing.T) {
	p := s.newProvider(t)
	for _, typ := range s.fx.Types {
		ts := p.Schema(typ)
		if ts.Provider != p.Name() {
			t.Errorf("Schema(%s).Provider = %q, want the provider's name %q", typ, ts.Provider, p.Name())
		}
		if ts.OwnState && ts.Rules != nil {
			t.Errorf("Schema(%s): rules for a type whose provider plans it (OwnState): %v", typ, ts.Rules)
		}
	}
}

// testChecks: the fixtures are valid, so no check refuses them, and the
// ID the provider gives an object is one it calls valid.
func (s *suite) testChecks(t *testing.T) {
	p := s.newProvider(t)
	ctx := context.Background()
	r := s.base("check")
	rs := []provider.Desired{{Name: r.Name, Type: r.Type, Properties: r.Properties}}
	if refused := p.CheckResources(rs); len(refused) > 0 {
		t.Errorf("CheckResources refuses a valid %s: %v", r.Type, refused)
	}
	if err := p.CheckName(r.Type, r.CloudName); err != nil {
		t.Errorf("CheckName(%s, %q): %v", r.Type, r.CloudName, err)
	}
	for name, check := range map[string]func(context.Context, []provider.Desired) ([]provider.Refusal, error){
		"ValidateConfigs": p.ValidateConfigs, "CheckCloud": p.CheckCloud,
	} {
		if refused, err := check(ctx, rs); err != nil || len(refused) > 0 {
			t.Errorf("%s of a valid %s: %v, %v", name, r.Type, refused, err)
		}
	}
	if refused, err := p.CheckReads(ctx, rs, map[string]any{"out": "plain"}); err != nil || len(refused) > 0 {
		t.Errorf("CheckReads of an output reading nothing: %v, %v", refused, err)
	}
	obj := s.create(t, p, r)
	if !p.ValidID(r.Type, obj.ID) {
		t.Errorf("ValidID(%s, %q) is false for the ID the provider gave", r.Type, obj.ID)
	}
}

// testPlanAndApply plans a create and carries it out, reads the object
// back, plans it again (nothing to do), plans and applies a change in
// place, and deletes it: the path every resource takes.
func (s *suite) testPlanAndApply(t *testing.T) {
	p := s.newProvider(t)
	ctx := context.Background()
	r := s.base("plan")
	created, err := p.PlanChange(ctx, provider.ChangeRequest{Resource: r})
	if err != nil || created.Planned == nil || len(created.Replace) > 0 || len(created.Refusals) > 0 {
		t.Fatalf("plan of a create: %+v, %v; want a plan and nothing else", created, err)
	}
	obj := s.create(t, p, r)
	got, err := read(ctx, p, r.Type, obj)
	if err != nil || got.ID != obj.ID {
		t.Fatalf("read %s %s after Create: %+v, %v", r.Type, obj.ID, got, err)
	}
	checkObject(t, p, r, got)
	if same := s.planAgainst(t, p, r, got, r.Properties); len(same.changes) > 0 || len(same.res.Replace) > 0 {
		t.Errorf("plan of what was just made: changes %+v, replaces %+v; want nothing to do", same.changes, same.res.Replace)
	}
	changed, prop := s.fx.Mutate(r)
	upd := s.planAgainst(t, p, changed, got, r.Properties)
	if len(upd.res.Replace) > 0 || !upd.changes.has(prop) {
		t.Fatalf("plan of a change of %s: replaces %+v, changes %+v; want %s changed in place", prop, upd.res.Replace, upd.changes, prop)
	}
	if p.Schema(r.Type).OwnState {
		changed.Planned, changed.Stored = upd.res.Planned, got.Stored
	}
	up, err := p.Update(ctx, obj.ID, changed)
	if err != nil || up.ID != obj.ID {
		t.Fatalf("Update %s %s (%s): %+v, %v; want the object changed in place", r.Type, obj.ID, prop, up, err)
	}
	after, err := read(ctx, p, r.Type, up)
	if err != nil || !value.Equal(after.Properties[prop], changed.Properties[prop]) {
		t.Errorf("read after Update: %s = %v (%v), want %v", prop, value.Text(after.Properties[prop]), err, value.Text(changed.Properties[prop]))
	}
	if err := remove(ctx, p, r.Type, after); err != nil {
		t.Fatalf("delete %s %s: %v", r.Type, obj.ID, err)
	}
	if s.fx.InState {
		return
	}
	if _, err := read(ctx, p, r.Type, after); !errors.Is(err, provider.ErrNotFound) {
		t.Errorf("read after delete: err = %v, want ErrNotFound", err)
	}
}

// planned is a plan of a change and its property changes, as the engine
// shows them.
type planned struct {
	res     provider.ChangePlan
	changes changeList
}

type changeList []string

// has reports whether a change is under top-level property prop.
func (l changeList) has(prop string) bool {
	for _, p := range l {
		if diff.TopLevel(p) == prop {
			return true
		}
	}
	return false
}

// planAgainst plans r against obj, the object as read, made from the
// properties applied.
func (s *suite) planAgainst(t *testing.T, p provider.Provider, r provider.Resource, obj provider.Object, applied map[string]any) planned {
	t.Helper()
	r.Planned, r.Stored = nil, nil
	res, err := p.PlanChange(context.Background(), provider.ChangeRequest{
		Resource: r, ID: obj.ID, Prior: obj.Properties, Applied: applied, Stored: obj.Stored,
	})
	if err != nil || res.Planned == nil || len(res.Refusals) > 0 {
		t.Fatalf("plan of %s %q against its object: %+v, %v", r.Type, r.Name, res, err)
	}
	var out planned
	out.res = res
	for _, pc := range diff.Values(res.Planned.PriorValues, res.Planned.Values, nil) {
		out.changes = append(out.changes, pc.Path)
	}
	return out
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
		got, err := read(ctx, p, typ, obj)
		if err != nil {
			t.Fatalf("Read %s %s after Create: %v", typ, obj.ID, err)
		}
		if got.ID != obj.ID {
			t.Errorf("Read %s %s: ID = %q", typ, obj.ID, got.ID)
		}
		checkObject(t, p, r, got)
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

// testImport: an object found by its ID is the object, and an ID nobody
// has is not found.
func (s *suite) testImport(t *testing.T) {
	p := s.newProvider(t)
	ctx := context.Background()
	r := s.base("import")
	obj := s.create(t, p, r)
	got, err := p.Import(ctx, r.Type, obj.ID)
	if err != nil || got.ID != obj.ID {
		t.Fatalf("Import %s %s: %+v, %v", r.Type, obj.ID, got, err)
	}
	if s.fx.InState {
		return
	}
	checkProps(t, r, got)
	if err := remove(ctx, p, r.Type, got); err != nil {
		t.Fatalf("delete %s %s: %v", r.Type, obj.ID, err)
	}
	if _, err := p.Import(ctx, r.Type, obj.ID); !errors.Is(err, provider.ErrNotFound) {
		t.Errorf("Import of a deleted object: err = %v, want ErrNotFound", err)
	}
}

// testReadMany: a bulk read answers only what it was asked, each object
// under its own ref (answering none is a plain answer: the engine then
// reads each).
func (s *suite) testReadMany(t *testing.T) {
	p := s.newProvider(t)
	var refs []provider.Ref
	ids := map[provider.Ref]bool{}
	for i := range 3 {
		r := s.base(fmt.Sprintf("many-%d", i))
		obj := s.create(t, p, r)
		ref := provider.Ref{Type: r.Type, ID: obj.ID}
		refs, ids[ref] = append(refs, ref), true
	}
	got, err := p.ReadMany(context.Background(), s.base("many").Prefix, refs)
	if err != nil {
		t.Fatalf("ReadMany: %v", err)
	}
	for ref, obj := range got {
		if !ids[ref] || obj.ID != ref.ID {
			t.Errorf("ReadMany answered %+v with object %s: not what it was asked", ref, obj.ID)
		}
	}
}

// testDataSources reads the fixtures' data source, or finds the provider
// has none (ErrNotSupported).
func (s *suite) testDataSources(t *testing.T) {
	p := s.newProvider(t)
	ctx := context.Background()
	r := s.base("data")
	if s.fx.Data == nil {
		for name, read := range map[string]func(context.Context, string, map[string]any) (map[string]any, []string, error){
			"ReadData": p.ReadData, "PlanData": p.PlanData,
		} {
			if _, _, err := read(ctx, r.Type, r.Properties); !errors.Is(err, provider.ErrNotSupported) {
				t.Errorf("%s of a provider without data sources: err = %v, want ErrNotSupported", name, err)
			}
		}
		return
	}
	obj := s.create(t, p, r)
	typ, props := s.fx.Data(r, obj)
	planned, _, err := p.PlanData(ctx, typ, props)
	if err != nil || planned["id"] != value.Unknown {
		t.Errorf("PlanData %s: %v, %v; want the ID known after the read", typ, planned, err)
	}
	vals, _, err := p.ReadData(ctx, typ, props)
	if err != nil || vals["id"] != obj.ID {
		t.Errorf("ReadData %s: %v, %v; want the object %s", typ, vals, err, obj.ID)
	}
}

// testConcurrentCreates makes objects of one type at once: each gets an
// ID of its own.
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
		wg.Go(func() { objs[i], errs[i] = s.make(context.Background(), p, rs[i]) })
	}
	wg.Wait()
	ids := map[string]string{}
	for i, err := range errs {
		if err != nil {
			t.Errorf("concurrent Create %q: %v", rs[i].CloudName, err)
			continue
		}
		s.cleanup(t, p, rs[i].Type, objs[i])
		checkObject(t, p, rs[i], objs[i])
		if other, dup := ids[objs[i].ID]; dup {
			t.Errorf("concurrent Create: %q and %q got the same ID %q", other, rs[i].CloudName, objs[i].ID)
		}
		ids[objs[i].ID] = rs[i].CloudName
	}
}

// testCancelled: a call with a cancelled context fails, saying so.
func (s *suite) testCancelled(t *testing.T) {
	p := s.newProvider(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := s.base("cancel")
	obj, err := s.make(ctx, p, r)
	if err == nil {
		s.cleanup(t, p, r.Type, obj)
		t.Fatal("Create with a cancelled context succeeded; want an error")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Create with a cancelled context: err = %v, want one wrapping context.Canceled", err)
	}
}

// testStop: a provider stops and closes plainly, also when it never ran.
func (s *suite) testStop(t *testing.T) {
	p := s.newProvider(t)
	if err := p.Stop(context.Background()); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
