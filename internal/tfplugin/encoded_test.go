package tfplugin_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfschema"
)

// TestEncodedCreateIsTheCtyCreate: a create made with the configuration
// encoded straight from Kyku's values (EncodeConfig, ValidateEncoded,
// ConfigMsgpack and ProposedMsgpack, answers decoded as Values) gets
// from the provider what the same create made with cty values gets, each
// in a provider process of its own with an empty cloud.
func TestEncodedCreateIsTheCtyCreate(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			typ := tp.Type + "_item"
			in := map[string]any{"name": "a", "value": "v1", "tags": map[string]any{"env": "prod", "team": "x"}}
			first, _ := start(t, tp)
			want := planApply(t, first, typ, cty.NilVal, in)

			p, _ := start(t, tp)
			ctx := t.Context()
			s, err := p.Schema(ctx)
			if err != nil {
				t.Fatal(err)
			}
			block := s.ResourceTypes[typ].Block
			cfg, ds, err := tfplugin.EncodeConfig(block, in)
			if err != nil || ds.HasErrors() || !cfg.Known {
				t.Fatalf("EncodeConfig: %v %v, known %v", err, ds, cfg.Known)
			}
			if ds, err := p.ValidateEncoded(ctx, typ, false, cfg.Msgpack); err != nil || ds.HasErrors() {
				t.Fatalf("ValidateEncoded: %v %v", err, ds)
			}
			null := cty.NullVal(block.ImpliedType())
			plan, err := p.PlanResourceChange(ctx, tfplugin.PlanRequest{TypeName: typ, PriorState: null,
				ConfigMsgpack: cfg.Msgpack, ProposedMsgpack: cfg.Msgpack, Values: true})
			if err != nil || plan.Diagnostics.HasErrors() {
				t.Fatalf("PlanResourceChange: %v %v", err, plan.Diagnostics)
			}
			if plan.PlannedState != cty.NilVal {
				t.Error("PlanResourceChange decoded the planned state's cty value too")
			}
			if diff := cmp.Diff(props(want.plan.PlannedState), plan.PlannedValues); diff != "" {
				t.Errorf("planned values (-cty create +encoded create):\n%s", diff)
			}
			if len(plan.PlannedMsgpack) == 0 { // (a map's order in it is the provider's: not compared)
				t.Error("the planned state's bytes are not kept for a saved plan")
			}
			applied, err := p.ApplyResourceChange(ctx, tfplugin.ApplyRequest{TypeName: typ, PriorState: null, ConfigMsgpack: cfg.Msgpack,
				PlannedMsgpack: plan.PlannedMsgpack, PlannedPrivate: plan.PlannedPrivate, Values: true})
			if err != nil || applied.Diagnostics.HasErrors() {
				t.Fatalf("ApplyResourceChange: %v %v", err, applied.Diagnostics)
			}
			if diff := cmp.Diff(props(want.state), applied.NewValues); diff != "" {
				t.Errorf("new values (-cty create +encoded create):\n%s", diff)
			}
			if applied.NewState != cty.NilVal || len(applied.NewMsgpack) == 0 {
				t.Errorf("ApplyResourceChange: NewState %#v, %d bytes of it", applied.NewState, len(applied.NewMsgpack))
			}

			// a value the provider refuses: its diagnostics as for the cty value
			bad := map[string]any{"name": "c", "value": "has space"}
			badCty, _ := tfschema.Config(block, bad)
			wantDs, err := p.ValidateResourceConfig(ctx, typ, badCty)
			if err != nil || !wantDs.HasErrors() {
				t.Fatalf("ValidateResourceConfig of a refused value: %v %v", err, wantDs)
			}
			badCfg, _, _ := tfplugin.EncodeConfig(block, bad)
			if ds, err := p.ValidateEncoded(ctx, typ, false, badCfg.Msgpack); err != nil || fmt.Sprint(ds) != fmt.Sprint(wantDs) {
				t.Errorf("ValidateEncoded of a refused value: %v %v, want %v", err, ds, wantDs)
			}
		})
	}
}
