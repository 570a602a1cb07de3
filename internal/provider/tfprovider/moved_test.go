package tfprovider_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/engine"
)

// TestMovedWholeResourceOfAProvidersType: a moved entry of two resource
// names moves every instance of a provider's resource (count and
// forEach), as OpenTofu's moved block does: one move per instance, the
// objects and their state kept (through a saved plan too), the next plan
// empty; one object moved onto an instance address while state holds
// instances is refused.
func TestMovedWholeResourceOfAProvidersType(t *testing.T) {
	const yaml = `providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  NAME: { type: TP_item, REPEAT, properties: { name: "n-KEY", value: v } }
`
	tests := []struct {
		name, repeat, key, from, to string
		insts                       []string
	}{
		{"count", "count: 2", "${count.index}", "app", "web", []string{"[0]", "[1]"}},
		{"forEach", "forEach: [a, b]", "${each.key}", "edge", "gate", []string{`["a"]`, `["b"]`}},
	}
	for _, tp := range testProviders {
		for _, tt := range tests {
			t.Run(tp.Type+"/"+tt.name, func(t *testing.T) {
				w := newWorld(t, tp)
				at := func(name string) string {
					return strings.NewReplacer("NAME", name, "REPEAT", tt.repeat, "KEY", tt.key).Replace(yaml)
				}
				w.apply(w.parse(at(tt.from)))
				before := w.state()
				cfg := w.parse(at(tt.to) + "moved:\n  - { from: " + tt.from + ", to: " + tt.to + " }\n")
				p := w.plan(cfg)
				var got, want []string
				for _, c := range p.Changes {
					got = append(got, c.Action.String()+" "+c.ResourceID+" from "+c.MovedFrom)
				}
				for _, k := range tt.insts {
					want = append(want, "move "+tt.to+k+" from "+tt.from+k)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("plan (-want +got):\n%s", diff)
				}
				res, err := w.engine(cfg).Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, roundTripPlan(t, p))
				if err != nil || res.Err() != nil {
					t.Fatalf("apply --plan: %v %v", err, res.Err())
				}
				after := w.state()
				for _, k := range tt.insts {
					old, now := before.Resources[tt.from+k], after.Resources[tt.to+k]
					if now == nil || now.ProviderID != old.ProviderID || now.Outputs["revision"] != old.Outputs["revision"] || now.Outputs["name"] != old.Outputs["name"] || after.Resources[tt.from+k] != nil {
						t.Errorf("%s after the move: %+v, want %s's object %+v", tt.to+k, now, tt.from+k, old)
					}
				}
				if p := w.plan(cfg); p.HasChanges() {
					t.Errorf("plan after the move: %+v", p.Changes)
				}
			})
		}
	}
	t.Run("one object onto an instance", func(t *testing.T) {
		w := newWorld(t, testProviders[0])
		w.apply(w.parse(strings.NewReplacer("NAME", "app", "REPEAT", "count: 2", "KEY", "${count.index}").Replace(yaml)))
		cfg := w.parse(strings.NewReplacer("NAME", "web", "REPEAT", "count: 2", "KEY", "${count.index}").Replace(yaml) + "moved:\n  - { from: app, to: \"web[0]\" }\n")
		_, err := w.engine(cfg).Plan(t.Context(), cfg)
		want := `kyku.yaml:6:5: moved app → web[0]: state holds instances of "app" (app[0], app[1]), not one object: move the whole resource (to: web), or each instance in an entry of its own`
		if err == nil || err.Error() != want {
			t.Errorf("plan: %v\nwant: %s", err, want)
		}
	})
}
