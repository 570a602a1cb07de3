package hetzner_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/hetzner"
	"github.com/kyku/action/internal/provider/hetzner/hcloudtest"
	"github.com/kyku/action/internal/provider/providertest"
	"github.com/kyku/action/internal/statemgr/local"
)

// TestCheckCloudSellsPerLocation: a Vm's size must be a server type the
// location sells, read from the API's server types (one request per
// plan), or a size one of whose types it sells: the CX line is not sold in
// ash, so small is cpx22 there, and cx23 by name is refused.
func TestCheckCloudSellsPerLocation(t *testing.T) {
	e := setup(t)
	ash := hetzner.NewWithClient(hetzner.NewClient(e.cloud.URL(), e.cloud.Token(), nil), hetzner.Options{Location: "ash", Now: e.clock.Now, Sleep: e.clock.Sleep})
	vms := []provider.Desired{
		{Name: "a", Type: "Vm", Properties: map[string]any{"size": "small"}},
		{Name: "b", Type: "Vm", Properties: map[string]any{"size": "cpx11"}},
		{Name: "c", Type: "Vm", Properties: map[string]any{"size": "large"}},
		{Name: "d", Type: "Vm", Properties: map[string]any{"size": "cax11"}},
		{Name: "e", Type: "Vm", Properties: map[string]any{"size": "cx99"}},
		{Name: "f", Type: "Vm", Properties: map[string]any{"size": "cx23"}},
		{Name: "g", Type: "Vm", Properties: map[string]any{"size": "${var.size}"}},
	}
	got, err := ash.CheckCloud(t.Context(), vms)
	if err != nil {
		t.Fatal(err)
	}
	sold := "ccx13, cpx11, cpx21, cpx22, cpx31, cpx32, cpx41, cpx42"
	want := []provider.Refusal{
		{Resource: "d", Path: "size", Reason: "server type cax11, which hetzner does not sell in ash (it sells " + sold + ")"},
		{Resource: "e", Path: "size", Reason: "hetzner has no server type cx99 (ash sells " + sold + ")"},
		{Resource: "f", Path: "size", Reason: "server type cx23, which hetzner does not sell in ash (it sells " + sold + ")"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CheckCloud in ash (-want +got):\n%s", diff)
	}
	if _, err := ash.CheckCloud(t.Context(), vms); err != nil {
		t.Fatal(err)
	}
	if n := e.cloud.Calls("GET /server_types"); n != 1 {
		t.Errorf("%d requests for the server types; want one, cached", n)
	}
	if got, err := e.p.CheckCloud(t.Context(), vms[:4]); err != nil || len(got) != 0 {
		t.Errorf("CheckCloud in fsn1: %v, %v; want every type sold", got, err)
	}
}

// TestExampleInEveryLocation: docs/providers.md says the example works in any
// location; it plans and applies in each, small being the first of its
// server types the location sells (cx23 in Europe, cpx22 elsewhere).
func TestExampleInEveryLocation(t *testing.T) {
	for loc, want := range map[string]string{"fsn1": "cx23", "nbg1": "cx23", "hel1": "cx23", "ash": "cpx22", "hil": "cpx22", "sin": "cpx22"} {
		t.Run(loc, func(t *testing.T) {
			e := setup(t)
			p := hetzner.NewWithClient(hetzner.NewClient(e.cloud.URL(), e.cloud.Token(), nil), hetzner.Options{Location: loc, Now: e.clock.Now, Sleep: e.clock.Sleep})
			eng := engine.New(p, local.New(t.TempDir(), "", local.Options{}), engineOptions)
			text := providertest.Edit(t, providertest.Example(t, "hetzner"), "location: fsn1", "location: "+loc)
			res, err := eng.Apply(t.Context(), providertest.Parse(t, text), engine.ApplyOptions{AutoApprove: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Failed) > 0 {
				t.Fatalf("apply in %s: %v", loc, res.Failed[0].Err)
			}
			e.cloud.Edit(func(st *hcloudtest.State) {
				for _, s := range st.Servers {
					if s.ServerType != want || s.Location != loc {
						t.Errorf("server %s is %s in %s, want %s in %s", s.Name, s.ServerType, s.Location, want, loc)
					}
				}
			})
			pl, err := eng.Plan(t.Context(), providertest.Parse(t, text))
			if err != nil {
				t.Fatal(err)
			}
			if pl.HasChanges() {
				t.Errorf("plan after apply in %s has changes: %+v", loc, pl.Counters)
			}
		})
	}
}
