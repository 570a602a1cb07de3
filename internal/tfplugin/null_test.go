package tfplugin_test

import (
	"os"
	"runtime"
	"slices"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/tfinstall"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfschema"
	"github.com/kyku/action/internal/value"
)

// TestRealNullProvider drives hashicorp/null 3.3.1, built from its
// release tag into a mirror (docs/benchmarks-tools.md), when
// KYKU_TEST_NULL_MIRROR names that mirror: installed from it, launched,
// its schema read, a null_resource created, its triggers changed
// (a replace), destroyed.
func TestRealNullProvider(t *testing.T) {
	dir := os.Getenv("KYKU_TEST_NULL_MIRROR")
	if dir == "" {
		t.Skip("KYKU_TEST_NULL_MIRROR is not set (see docs/benchmarks-tools.md)")
	}
	ctx := t.Context()
	src, _ := tfinstall.ParseSource("hashicorp/null")
	c, _ := tfinstall.ParseConstraints("3.3.1")
	in := &tfinstall.Installer{Mirror: dir, Platform: tfinstall.Platform{OS: runtime.GOOS, Arch: runtime.GOARCH}}
	got, err := in.Install(ctx, []tfinstall.Requirement{{Source: src, Constraints: c}}, &tfinstall.Lock{}, false)
	if err != nil {
		t.Fatal(err)
	}
	p, err := tfplugin.Start(ctx, tfplugin.Config{Name: src.String(), Path: got[0].Executable})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	t.Logf("null %s speaks protocol %d", got[0].Version, p.Protocol())
	s, err := p.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nr := s.ResourceTypes["null_resource"]
	if nr == nil || !nr.Block.Attributes["id"].Computed || !nr.Block.Attributes["triggers"].Type.Equals(cty.Map(cty.String)) {
		t.Fatalf("null_resource schema: %+v", nr)
	}
	configure(t, p, map[string]any{})

	created := planApply(t, p, "null_resource", cty.NilVal, map[string]any{"triggers": map[string]any{"v": "1"}})
	if props(created.plan.PlannedState)["id"] != value.Unknown {
		t.Errorf("planned id: %v, want known after apply", props(created.plan.PlannedState))
	}
	id, _ := props(created.state)["id"].(string)
	if id == "" || id == value.Unknown {
		t.Fatalf("created: %v", props(created.state))
	}

	config, _ := tfschema.Config(nr.Block, map[string]any{"triggers": map[string]any{"v": "2"}})
	plan, err := p.PlanResourceChange(ctx, tfplugin.PlanRequest{TypeName: "null_resource", PriorState: created.state, Config: config,
		ProposedNewState: tfschema.ProposedNew(nr.Block, created.state, config)})
	if err != nil || plan.Diagnostics.HasErrors() {
		t.Fatal(err, plan.Diagnostics)
	}
	if rr := paths(plan.RequiresReplace); !slices.Contains(rr, "triggers") {
		t.Errorf("changed triggers: RequiresReplace %v, want triggers", rr)
	}
	if destroyed := planApply(t, p, "null_resource", created.state, nil); !destroyed.state.IsNull() {
		t.Errorf("destroyed: %#v", destroyed.state)
	}
}
