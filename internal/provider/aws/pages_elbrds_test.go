package aws_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
)

// Target groups past the first page of DescribeTargetGroups (NextMarker)
// are found by Read, Lookup and ReadMany alike: with one group a page,
// every group but the first is on a later page, after empty ones.
func TestEveryTargetGroupPageIsRead(t *testing.T) {
	p, srv := setup(t)
	_, subnet, _ := network(t, p)
	vm := mustCreate(t, p, res("Vm", "vm", map[string]any{"subnet": subnet, "image": "debian-12"}))
	var refs []provider.Ref
	for i := range 3 {
		tg := mustCreate(t, p, res("TargetGroup", fmt.Sprintf("tg-%d", i), map[string]any{"port": float64(80), "protocol": "http", "targets": []any{vm.ID}}))
		refs = append(refs, provider.Ref{Type: "TargetGroup", ID: tg.ID})
	}
	srv.SetPageSize(1)
	ctx := t.Context()
	for i, r := range refs {
		if _, err := p.Read(ctx, r.Type, r.ID); err != nil {
			t.Errorf("read tg-%d: %v", i, err)
		}
		if got, err := p.Lookup(ctx, r.Type, fmt.Sprintf("demo-tg-%d", i)); err != nil || got.ID != r.ID {
			t.Errorf("lookup of tg-%d: %q, %v; want %s", i, got.ID, err, r.ID)
		}
	}
	got, err := p.ReadMany(ctx, "demo", refs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		if _, ok := got[r]; !ok {
			t.Errorf("ReadMany left out %s", r.ID)
		}
	}
}

// Load balancers, their listeners and databases past the first page
// (NextMarker, Marker) are found by Read and ReadMany: with one object a
// page, each but the first is on a later page.
func TestEveryLoadBalancerAndDatabasePageIsRead(t *testing.T) {
	p, srv := setup(t)
	s := newSite(t, p)
	vm := mustCreate(t, p, res("Vm", "web", map[string]any{"subnet": s.public[0], "image": "debian-12"}))
	tg := mustCreate(t, p, res("TargetGroup", "tg", map[string]any{"targets": []any{vm.ID}}))
	var refs []provider.Ref
	for i := range 3 {
		lb := mustCreate(t, p, res("LoadBalancer", fmt.Sprintf("lb-%d", i), map[string]any{"network": s.vpc, "targetGroup": tg.ID, "securityGroups": []any{s.sg}}))
		db := mustCreate(t, p, res("Database", fmt.Sprintf("db-%d", i), map[string]any{"network": s.vpc, "engine": "postgres"}))
		refs = append(refs, provider.Ref{Type: "LoadBalancer", ID: lb.ID}, provider.Ref{Type: "Database", ID: db.ID})
	}
	srv.SetPageSize(1)
	ctx := t.Context()
	read := map[provider.Ref]provider.Object{}
	for _, r := range refs {
		o, err := p.Read(ctx, r.Type, r.ID)
		if err != nil {
			t.Errorf("read %s %s: %v", r.Type, r.ID, err)
			continue
		}
		if r.Type == "LoadBalancer" && o.Properties["targetGroup"] != tg.ID {
			t.Errorf("%s read without its listener's target group: %v", r.ID, o.Properties)
		}
		read[r] = o
	}
	got, err := p.ReadMany(ctx, "demo", refs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(read, got); diff != "" {
		t.Errorf("ReadMany against Read (-read +listed):\n%s", diff)
	}
}
