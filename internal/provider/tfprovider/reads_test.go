package tfprovider_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// planAll plans reading every object (--refresh=all).
func (w *world) planAll(cfg *config.Config) *plan.Plan {
	w.t.Helper()
	p, err := w.engine(cfg).PlanWith(w.t.Context(), cfg, engine.PlanOptions{Refresh: engine.RefreshAll})
	if err != nil {
		w.t.Fatalf("plan: %v", err)
	}
	return p
}

const reading = `
providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a:
    type: TP_item
    properties: { name: a, value: VALUE }
  b:
    type: TP_item
    properties: { name: b, value: "rev-${a.revision}" }
  c:
    type: TP_item
    properties: { name: c, value: c1 }
`

// drift changes the value of the provider's object named name in its
// cloud.
func (w *world) drift(name, from, to string) {
	w.t.Helper()
	item := filepath.Join(w.cloud, w.state().Resources[name].ProviderID+".json")
	data, err := os.ReadFile(item)
	if err != nil {
		w.t.Fatal(err)
	}
	moved := strings.Replace(string(data), `"value":"`+from+`"`, `"value":"`+to+`"`, 1)
	if moved == string(data) {
		w.t.Fatalf("%s holds no value %q: %s", item, from, data)
	}
	if err := os.WriteFile(item, []byte(moved), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// On a Terraform provider: a plan reads and plans what the change
// touches (a, and b reading from it), takes c from state; drift in c
// never changes the plan's actions, drift in a is found.
func TestPlanReadsWhatTheChangeTouchesOnAProvider(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			w.apply(w.parse(strings.ReplaceAll(reading, "VALUE", "v1")))
			w.drift("c", "c1", "c-drifted")
			w.drift("a", "v1", "a-drifted")

			p := w.plan(w.parse(strings.ReplaceAll(reading, "VALUE", "v2")))
			if c := change(p, "c"); c == nil || c.Action != plan.NoOp || !c.NotRead || c.LastRead == nil {
				t.Errorf("c, untouched and drifted: %+v; want a no-op not read", c)
			}
			a := change(p, "a")
			if a == nil || a.Action != plan.Update || a.NotRead || prop(a, "value") == nil || prop(a, "value").Old != "a-drifted" {
				t.Errorf("a, changed and drifted: %+v; want its drift read", a)
			}
			if b := change(p, "b"); b == nil || b.NotRead {
				t.Errorf("b reads from a, which changes: %+v; want it read", b)
			}
			if p.Reads == nil || p.Reads.Read != 2 || p.Reads.Objects != 3 {
				t.Errorf("reads %+v, want 2 of 3", p.Reads)
			}
			if got := change(w.planAll(w.parse(strings.ReplaceAll(reading, "VALUE", "v2"))), "c"); got.Action != plan.Update {
				t.Errorf("--refresh=all: c %+v, want its drift found (the test's drift is real)", got)
			}
		})
	}
}

// On a Terraform provider: apply reads the object it updates just before
// updating it and refuses when it moved since the plan.
func TestApplyRefusesWhatMovedSincePlanOnAProvider(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			w.apply(w.parse(strings.ReplaceAll(reading, "VALUE", "v1")))
			cfg := w.parse(strings.ReplaceAll(reading, "VALUE", "v2"))
			move := func(*plan.Plan) (bool, error) {
				w.drift("a", "v1", "moved")
				return true, nil
			}
			res, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{Confirm: move}, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := `refused to update ` + tp.Type + `_item "a": the cloud moved since the plan (its value changed)`
			if err := res.Err(); !engine.IsMoved(err) || !strings.Contains(err.Error(), want) {
				t.Fatalf("apply: %v\nwant: %s", err, want)
			}
			data, _ := os.ReadFile(filepath.Join(w.cloud, w.state().Resources["a"].ProviderID+".json"))
			if !strings.Contains(string(data), `"value":"moved"`) || slices.Contains(strings.Fields(string(data)), "v2") {
				t.Errorf("a was changed although refused: %s", data)
			}
		})
	}
}

// What changed since its last apply is validated by its provider, as
// before: a value the provider refuses is refused at plan.
func TestChangedConfigurationStillValidated(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	w.apply(w.parse(strings.ReplaceAll(reading, "VALUE", "v1")))
	cfg := w.parse(strings.ReplaceAll(reading, "VALUE", `"has spaces"`))
	_, err := w.engine(cfg).Plan(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), "the test cloud refuses spaces in value") {
		t.Fatalf("plan: %v, want the provider's refusal of a's new value", err)
	}
}
