package hetzner_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/value"
)

// TestReadManyListsByPrefix: ReadMany answers every ref of a deploy
// prefix with one listing per kind of object, every page read (50 a page),
// and returns exactly what Read returns for each; objects of another
// prefix, or gone, are left out for the engine to read alone.
func TestReadManyListsByPrefix(t *testing.T) {
	e := setup(t)
	ctx := t.Context()
	var refs []provider.Ref
	add := func(typ string, obj provider.Object) provider.Object {
		refs = append(refs, provider.Ref{Type: typ, ID: obj.ID})
		return obj
	}
	create := func(r provider.Resource) provider.Object { return add(r.Type, mustCreate(t, e.p, r)) }

	const nets, keys, servers = 51, 101, 52 // 2, 3 and 2 pages
	var main provider.Object
	for i := range nets {
		n := create(res("Vpc", fmt.Sprintf("net-%d", i), map[string]any{"cidr": fmt.Sprintf("10.%d.0.0/16", i), "distributeAcrossAzs": float64(0)}))
		if i == 0 {
			main = n
		}
	}
	sn := create(res("Subnet", "sn", map[string]any{"network": main.ID, "cidr": "10.0.1.0/24", "zone": "eu-central", "public": true}))
	sg := create(res("SecurityGroup", "sg", map[string]any{"network": main.ID, "ingress": []any{map[string]any{"protocol": "tcp", "port": float64(80), "cidr": "0.0.0.0/0"}}}))
	var keyID string
	for i := range keys {
		keyID = create(res("SshKey", fmt.Sprintf("key-%d", i), map[string]any{"publicKey": publicKey(fmt.Sprint("k", i))})).ID
	}
	var vms []any
	for i := range servers {
		vm := create(res("Vm", fmt.Sprintf("vm-%d", i), map[string]any{
			"network": main.ID, "subnet": sn.ID, "securityGroups": []any{sg.ID}, "sshKeys": []any{keyID}, "image": "debian-12", "size": "small",
		}))
		if i < 3 {
			vms = append(vms, vm.ID)
		}
	}
	tg := create(res("TargetGroup", "tg", map[string]any{"port": float64(80), "protocol": "http", "targets": vms}))
	create(res("LoadBalancer", "lb", map[string]any{"network": main.ID, "port": float64(80), "targetGroup": tg.ID}))

	// Not this prefix, and gone: both left out.
	other := vpc("other")
	other.Prefix = "kyku0002"
	otherNet := mustCreate(t, e.p, other)
	gone := mustCreate(t, e.p, vpc("gone"))
	if err := e.p.Delete(ctx, "Vpc", gone.ID); err != nil {
		t.Fatal(err)
	}
	missing := []provider.Ref{{Type: "Vpc", ID: otherNet.ID}, {Type: "Vpc", ID: gone.ID}}

	e.cloud.ResetCalls()
	got, err := e.p.ReadMany(ctx, "kyku0001", append(append([]provider.Ref{}, refs...), missing...))
	if err != nil {
		t.Fatalf("ReadMany: %v", err)
	}
	calls := e.cloud.Calls("")
	pages := 2 + 1 + 3 + 2 + 1 // networks, firewalls, ssh keys, servers, load balancers
	types := 7
	if calls != pages {
		t.Errorf("ReadMany made %d requests, want %d (the pages of five listings)", calls, pages)
	}
	if calls > types+pages {
		t.Errorf("ReadMany made %d requests; the bound is types + pages = %d", calls, types+pages)
	}
	t.Logf("ReadMany: %d objects in %d requests (per-object reads: %d)", len(refs), calls, len(refs))
	for _, m := range missing {
		if _, ok := got[m]; ok {
			t.Errorf("ReadMany returned %v, which is of another prefix or gone", m)
		}
	}
	if len(got) != len(refs) {
		t.Errorf("ReadMany found %d of %d refs", len(got), len(refs))
	}
	for _, r := range refs {
		one, err := e.p.Read(ctx, r.Type, r.ID)
		if err != nil {
			t.Fatalf("Read %v: %v", r, err)
		}
		bulk, ok := got[r]
		if !ok {
			t.Errorf("ReadMany missed %v", r)
			continue
		}
		if diff := cmp.Diff(value.Normalize(objMap(one)), value.Normalize(objMap(bulk))); diff != "" {
			t.Errorf("%v: ReadMany differs from Read (-Read +ReadMany):\n%s", r, diff)
		}
	}
}

func objMap(o provider.Object) map[string]any {
	return map[string]any{"id": o.ID, "cloudName": o.CloudName, "props": o.Properties, "outputs": o.Outputs}
}
