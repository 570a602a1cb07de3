package hetzner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/hetzner"
	"github.com/kyku/action/internal/provider/providertest"
	"github.com/kyku/action/internal/statemgr/local"
)

// TestCheckCloudSellsPerLocation: a Vm's size must be a server type the
// location sells, read from the API's server types (one request per
// plan): the CX line is not sold in ash.
func TestCheckCloudSellsPerLocation(t *testing.T) {
	e := setup(t)
	ash := hetzner.NewWithClient(hetzner.NewClient(e.cloud.URL(), e.cloud.Token(), nil), hetzner.Options{Location: "ash", Now: e.clock.Now, Sleep: e.clock.Sleep})
	vms := []provider.Desired{
		{Name: "a", Type: "Vm", Properties: map[string]any{"size": "small"}},
		{Name: "b", Type: "Vm", Properties: map[string]any{"size": "cpx11"}},
		{Name: "c", Type: "Vm", Properties: map[string]any{"size": "cax11"}},
		{Name: "d", Type: "Vm", Properties: map[string]any{"size": "cx99"}},
		{Name: "e", Type: "Vm", Properties: map[string]any{"size": "${var.size}"}},
	}
	got, err := ash.CheckCloud(context.Background(), vms)
	if err != nil {
		t.Fatal(err)
	}
	sold := "ccx13, cpx11, cpx21, cpx22, cpx31, cpx32"
	want := []provider.Refusal{
		{Resource: "a", Path: "size", Reason: "size small is server type cx23, which hetzner does not sell in ash (it sells " + sold + ")"},
		{Resource: "c", Path: "size", Reason: "server type cax11, which hetzner does not sell in ash (it sells " + sold + ")"},
		{Resource: "d", Path: "size", Reason: "hetzner has no server type cx99 (ash sells " + sold + ")"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CheckCloud in ash (-want +got):\n%s", diff)
	}
	if _, err := ash.CheckCloud(context.Background(), vms); err != nil {
		t.Fatal(err)
	}
	if n := e.cloud.Calls("GET /server_types"); n != 1 {
		t.Errorf("%d requests for the server types; want one, cached", n)
	}
	if got, err := e.p.CheckCloud(context.Background(), vms[:3]); err != nil || len(got) != 0 {
		t.Errorf("CheckCloud in fsn1: %v, %v; want every type sold", got, err)
	}
}

// TestPlanInAshRefusesTheCXLine: the example planned in ash is a plan
// error at each Vm's size, before anything is created.
func TestPlanInAshRefusesTheCXLine(t *testing.T) {
	e := setup(t)
	ash := hetzner.NewWithClient(hetzner.NewClient(e.cloud.URL(), e.cloud.Token(), nil), hetzner.Options{Location: "ash", Now: e.clock.Now, Sleep: e.clock.Sleep})
	eng := engine.New(ash, local.New(t.TempDir(), "", local.Options{}), engineOptions)
	_, err := eng.Plan(context.Background(), providertest.Parse(t, providertest.Example(t, "hetzner")))
	if err == nil || strings.Count(err.Error(), "which hetzner does not sell in ash") != 2 || !strings.Contains(err.Error(), `kyku.yaml:`) {
		t.Fatalf("plan in ash: %v; want both Vms' sizes refused, positioned", err)
	}
	if inv := e.cloud.Inventory(); len(inv) != 0 {
		t.Errorf("the refused plan made %v", inv)
	}
}
