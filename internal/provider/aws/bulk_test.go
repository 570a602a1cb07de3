package aws_test

import (
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/aws/awstest"
	"github.com/kyku/action/internal/provider/providertest"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr/local"
)

// applied applies the example through the engine and returns the state.
func applied(t *testing.T) (*aws.Provider, *awstest.Server, *engine.Engine, *state.File) {
	t.Helper()
	p, srv := fake(t, engineOptions)
	e := engine.New(p, local.New(t.TempDir(), "", local.Options{}), engine.Options{DeployPrefix: "kyku0001", RetryBase: time.Millisecond})
	res, err := e.Apply(t.Context(), providertest.Parse(t, providertest.Example(t, "aws")), engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil || res.Err() != nil {
		t.Fatalf("apply: %v %v", err, res.Err())
	}
	st, err := e.ReadState(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return p, srv, e, st
}

func refsOf(st *state.File) []provider.Ref {
	var refs []provider.Ref
	for _, n := range st.Names() {
		if r := st.Resources[n]; r.ProviderID != "" {
			refs = append(refs, provider.Ref{Type: r.Type, ID: r.ProviderID})
		}
	}
	return refs
}

// ReadMany returns, for every object of a stack, exactly what Read does,
// in fewer requests, every page read (the fake pages by 2); an object
// whose prefix tag was removed is still found (by ID), a terminated
// instance is left out for the engine's Read to call gone.
func TestReadMany(t *testing.T) {
	p, srv, _, st := applied(t)
	ctx := t.Context()
	refs := refsOf(st)
	var vm, subnet string
	for _, r := range refs {
		switch r.Type {
		case "Vm":
			vm = r.ID
		case "Subnet":
			subnet = r.ID
		}
	}
	srv.Edit(func(s *awstest.State) {
		delete(s.Subnets[subnet].Tags, "kyku:prefix")
		s.Instances[vm].State = "terminated"
	})
	before := srv.Requests()
	got, err := p.ReadMany(ctx, "kyku0001", refs)
	if err != nil {
		t.Fatal(err)
	}
	bulk := srv.Requests() - before
	var missing []string
	for _, r := range refs {
		o, ok := got[r]
		if !ok {
			missing = append(missing, r.Type+" "+r.ID)
			continue
		}
		one, err := p.Read(ctx, r.Type, r.ID)
		if err != nil {
			t.Fatalf("read %v: %v", r, err)
		}
		if d := cmp.Diff(one, o); d != "" {
			t.Errorf("%v: listed object differs from Read (-read +listed):\n%s", r, d)
		}
	}
	if d := cmp.Diff([]string{"Vm " + vm}, missing); d != "" {
		t.Errorf("left out (-want +got):\n%s", d)
	}
	before = srv.Requests()
	for _, r := range refs {
		_, _ = p.Read(ctx, r.Type, r.ID)
	}
	if one := srv.Requests() - before; bulk >= one {
		t.Errorf("ReadMany made %d requests, Read one by one %d; want fewer", bulk, one)
	}
	t.Logf("%d objects: ReadMany %d requests, Read one by one %d", len(refs), bulk, srv.Requests()-before)

	if _, err := p.ReadMany(ctx, "kyku0001", []provider.Ref{{Type: "Server", ID: "1"}}); err == nil || !strings.Contains(err.Error(), "Server") {
		t.Errorf("unknown type: err = %v", err)
	}
}

// The engine plans through ReadMany on AWS: a plan of the applied example
// reads no object one by one (no Describe by a single ID) and finds no
// change; one gone behind Kyku's back is read on its own and re-created.
func TestPlanReadsInBulk(t *testing.T) {
	_, srv, e, st := applied(t)
	ctx := t.Context()
	before := map[string]int{}
	actions := []string{"DescribeVpcs", "DescribeSubnets", "DescribeSecurityGroups", "DescribeKeyPairs", "DescribeInstances", "DescribeDBInstances", "DescribeTargetGroups", "DescribeLoadBalancers"}
	for _, a := range actions {
		before[a] = srv.Calls(a)
	}
	pl, err := e.Plan(ctx, providertest.Parse(t, providertest.Example(t, "aws")))
	if err != nil {
		t.Fatal(err)
	}
	if got := providertest.Actions(pl); len(got) != 0 {
		t.Errorf("plan %v, want no changes", got)
	}
	var calls []string
	total := 0
	for _, a := range actions {
		n := srv.Calls(a) - before[a]
		total += n
		calls = append(calls, a+"="+strconv.Itoa(n))
	}
	sort.Strings(calls)
	if resources := len(refsOf(st)); total >= resources {
		t.Errorf("plan of %d resources made %d Describe calls (%v); want fewer than one per resource", resources, total, calls)
	}

	srv.Edit(func(s *awstest.State) { delete(s.DBs, "kyku0001-app-db") })
	reads := srv.Calls("DescribeDBInstances")
	// A plan reads only what its change touches (docs/plan-reads.md): a
	// database gone behind Kyku's back is found by one that reads all.
	pl, err = e.PlanWith(ctx, providertest.Parse(t, providertest.Example(t, "aws")), engine.PlanOptions{Refresh: engine.RefreshAll})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"create app-db"}, providertest.Actions(pl)); d != "" {
		t.Errorf("plan after the database went (-want +got):\n%s", d)
	}
	if n := srv.Calls("DescribeDBInstances") - reads; n != 2 {
		t.Errorf("DescribeDBInstances calls = %d, want 2 (the list, then the Read that calls it gone)", n)
	}
}
