package aws_test

import (
	"fmt"
	"testing"

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
