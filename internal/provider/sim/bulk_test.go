package sim

import (
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
)

func key(name, cloudName string) provider.Resource {
	return provider.Resource{Name: name, Type: "SshKey", CloudName: cloudName,
		Properties: map[string]any{"publicKey": "ssh-ed25519 " + name}}
}

// ReadMany lists each type under the prefix in pages, one call per page,
// and leaves out what the list cannot show, for the engine to Read.
func TestReadMany(t *testing.T) {
	p := newSim(t, Options{Dir: t.TempDir(), PageSize: 3})
	b := Bulk{p}
	var refs []provider.Ref
	want := map[provider.Ref]string{} // ref → cloud name expected back
	for i := range 7 {
		o := mustCreate(t, p, key(fmt.Sprintf("k%d", i), fmt.Sprintf("pfx-k%d", i)))
		refs = append(refs, provider.Ref{Type: "SshKey", ID: o.ID})
		want[refs[len(refs)-1]] = o.CloudName
	}
	net := mustCreate(t, p, vpc("net"))
	refs = append(refs, provider.Ref{Type: "Vpc", ID: net.ID})
	want[refs[len(refs)-1]] = net.CloudName
	// Not listed: another prefix's object, one that is gone, one a read
	// failure rule matches, and an object of the prefix nobody asked for.
	other := mustCreate(t, p, key("legacy", "old-legacy"))
	gone := mustCreate(t, p, key("gone", "pfx-gone"))
	if err := p.Delete(t.Context(), "SshKey", gone.ID); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, p, key("stranger", "pfx-stranger"))
	refs = append(refs, provider.Ref{Type: "SshKey", ID: other.ID}, provider.Ref{Type: "SshKey", ID: gone.ID})
	p.opts.Fail = []FailRule{{Op: OpRead, Type: "SshKey", Name: "k6"}}
	delete(want, refs[6])

	before := p.Calls()
	got, err := b.ReadMany(t.Context(), "pfx", refs)
	if err != nil {
		t.Fatal(err)
	}
	// SshKey: 8 objects under pfx (k0–k6, stranger) in pages of 3 → 3
	// calls; Vpc: 1. Nothing else.
	if d := cmp.Diff(Calls{List: 4}, diffCalls(p.Calls(), before)); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
	gotNames := map[provider.Ref]string{}
	for ref, o := range got {
		gotNames[ref] = o.CloudName
		one, err := p.Read(t.Context(), ref.Type, ref.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(one, o); d != "" {
			t.Errorf("%v: listed object differs from Read (-read +listed):\n%s", ref, d)
		}
	}
	if d := cmp.Diff(want, gotNames); d != "" {
		t.Errorf("ReadMany (-want +got):\n%s", d)
	}
}

func diffCalls(a, b Calls) Calls {
	return Calls{Zones: a.Zones - b.Zones, Create: a.Create - b.Create, Read: a.Read - b.Read, Lookup: a.Lookup - b.Lookup,
		Update: a.Update - b.Update, Delete: a.Delete - b.Delete, List: a.List - b.List}
}

// A page that fails transiently fails ReadMany transiently; an empty type
// still costs its one call.
func TestReadManyFaults(t *testing.T) {
	p := newSim(t, Options{Dir: t.TempDir(), FailRate: 1, Seed: 1})
	_, err := Bulk{p}.ReadMany(t.Context(), "pfx", []provider.Ref{{Type: "Vm", ID: "10000001"}})
	if !provider.IsTransient(err) {
		t.Fatalf("err = %v, want transient", err)
	}
	q := newSim(t, Options{Dir: t.TempDir()})
	got, err := Bulk{q}.ReadMany(t.Context(), "pfx", []provider.Ref{{Type: "Vm", ID: "10000001"}})
	if err != nil || len(got) != 0 || q.Calls().List != 1 {
		t.Fatalf("empty cloud: %v, %v, %d list calls; want nothing found in one call", got, err, q.Calls().List)
	}
	if _, err := (Bulk{q}).ReadMany(t.Context(), "pfx", []provider.Ref{{Type: "Server", ID: "1"}}); err == nil {
		t.Error("unknown type: no error")
	}
}

// Objects are listed in ID order, and a file deleted under a listing is
// skipped rather than failing it.
func TestScanOrder(t *testing.T) {
	p := newSim(t, Options{Dir: t.TempDir()})
	var ids []string
	for i := range 12 {
		ids = append(ids, mustCreate(t, p, key(fmt.Sprintf("k%d", i), fmt.Sprintf("pfx-k%d", i))).ID)
	}
	if err := os.Remove(p.store.objectPath("SshKey", ids[3])); err != nil {
		t.Fatal(err)
	}
	recs, err := Bulk{p}.scan("SshKey", "pfx-")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.ID)
	}
	want := append(append([]string(nil), ids[:3]...), ids[4:]...)
	sort.Strings(want)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("scan (-want +got):\n%s", d)
	}
}
