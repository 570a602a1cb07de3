package tfprovider_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// deferred: look reads a by name (known at plan) while a has changes
// pending; chain reads, by name, c, named after b's ID (known only after
// b is created), and waits for c (dependsOn); all lists the items, its
// prefix an empty string (which the SDK reads back as null); copy and
// the outputs read what they found.
const deferred = `
providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a: { type: TP_item, properties: { name: a, value: VALUE } }
  b: { type: TP_item, properties: { name: b } }
  c: { type: TP_item, properties: { name: "${b.id}", value: named-after-b } }
  copy: { type: TP_item, properties: { name: copy, value: "${look.value}" } }
data:
  look: { type: TP_item, properties: { name: "${a.name}" } }
  chain: { type: TP_item, properties: { name: "${b.id}" }, dependsOn: [c] }
  all: { type: TP_list, properties: { prefix: "" }, dependsOn: [a] }
outputs:
  seen: "${look.value}"
  chained: "${chain.value}"
  prefix: "${all.prefix}"
`

// TestDataSourceReadDuringApply: a data source whose configuration refers
// to values not yet known, or that depends on a resource with changes
// pending, is read during apply, after what it depends on, as OpenTofu
// reads it: the plan shows the read (its attributes known after apply,
// what its configuration says known), what reads it is planned with
// those unknown and applied with what the read found; a data source with
// nothing pending is read at plan, so the plan after an apply is empty;
// after a change of what it reads, apply gives the new value, not the
// old; a saved plan carries the read.
func TestDataSourceReadDuringApply(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) { deferredFlow(t, tp) })
	}
}

func deferredFlow(t *testing.T, tp tfplugintest.Provider) {
	w := newWorld(t, tp)
	cfg := w.parse(strings.ReplaceAll(deferred, "VALUE", "v1"))

	p := w.plan(cfg) // the first plan: nothing exists, look and chain can only be read during apply
	look, chain := change(p, "look"), change(p, "chain")
	if look == nil || look.Action != plan.Read || chain == nil || chain.Action != plan.Read {
		t.Fatalf("first plan: look %+v, chain %+v; want both read during apply", look, chain)
	}
	if want := "will be read during apply: it depends on a resource with changes pending"; look.Reason != want {
		t.Errorf("look's reason %q, want %q", look.Reason, want)
	}
	if want := "will be read during apply: its configuration refers to values not yet known"; chain.Reason != want {
		t.Errorf("chain's reason %q, want %q", chain.Reason, want)
	}
	if pc := prop(look, "name"); pc == nil || pc.New != "a" || pc.Unknown {
		t.Errorf("look's name: %+v, want a, known (configured)", pc)
	}
	if pc := prop(look, "value"); pc == nil || !pc.Unknown {
		t.Errorf("look's value: %+v, want known after apply", pc)
	}
	if pc := prop(change(p, "copy"), "value"); pc == nil || !pc.Unknown {
		t.Errorf("copy's value: %+v, want known after apply (it reads look)", pc)
	}
	if p.Counters.Read != 3 || p.Counters.Create != 4 {
		t.Errorf("counters %+v, want 4 creates, 3 reads", p.Counters)
	}

	res := w.apply(cfg)
	// all's prefix is what the plan knew (""), however the provider reads
	// it back: the plan is a promise.
	if diff := cmp.Diff(map[string]any{"seen": "v1", "chained": "named-after-b", "prefix": ""}, res.Outputs); diff != "" {
		t.Errorf("outputs of the first apply (-want +got):\n%s", diff)
	}
	if got := w.state().Resources["copy"].Outputs["value"]; got != "v1" {
		t.Errorf("copy's value after the first apply: %v, want v1", got)
	}
	read := 0
	for _, c := range res.Succeeded {
		if c.Action == plan.Read {
			read++
		}
	}
	if read != 3 {
		t.Errorf("apply's results: %+v, want the three reads among them", res.Succeeded)
	}

	// Nothing pending: read at plan, and the plan is empty.
	if p := w.plan(cfg); p.HasChanges() || change(p, "look") != nil {
		t.Errorf("plan after apply: %+v", p.Changes)
	} else if p.Data["look"]["value"] != "v1" {
		t.Errorf("look read at plan: %v", p.Data["look"])
	}

	// a changes: look waits for it; chain, with nothing pending, is read
	// at plan. Saved, then applied.
	cfg = w.parse(strings.ReplaceAll(deferred, "VALUE", "v2"))
	p = w.plan(cfg)
	if c := change(p, "look"); c == nil || c.Action != plan.Read {
		t.Fatalf("plan of the change: look %+v, want read during apply", c)
	}
	if c := change(p, "chain"); c != nil {
		t.Errorf("plan of the change: chain %+v, want read at plan", c)
	}
	if pc := prop(change(p, "copy"), "value"); pc == nil || pc.Old != "v1" || !pc.Unknown {
		t.Errorf("copy's value: %+v, want v1 → known after apply", pc)
	}
	saved, err := plan.Decode("plan.json", mustEncode(t, p))
	if err != nil {
		t.Fatal(err)
	}
	if c := change(saved, "look"); c == nil || c.Action != plan.Read || c.Reason != change(p, "look").Reason {
		t.Fatalf("the saved plan lost the read: %+v", c)
	}
	// A saved plan edited to read look at plan (its read dropped, its
	// checksum computed again) is refused: planning again reads it
	// during apply.
	edited, err := plan.Decode("plan.json", mustEncode(t, p))
	if err != nil {
		t.Fatal(err)
	}
	edited.Changes = slices.DeleteFunc(edited.Changes, func(c plan.Change) bool { return c.Action == plan.Read })
	edited.Count()
	if edited, err = plan.Decode("plan.json", mustEncode(t, edited)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.engine(cfg).Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, edited); !engine.IsMismatch(err) {
		t.Fatalf("apply of a plan without its read: %v, want a mismatch", err)
	}
	res, err = w.engine(cfg).Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, saved)
	if err != nil {
		t.Fatalf("apply --plan: %v", err)
	}
	if err := res.Err(); err != nil {
		t.Fatalf("apply --plan: %v", err)
	}
	if res.Outputs["seen"] != "v2" {
		t.Errorf("output after the change: %v, want v2 (what look reads after a changed), not the old", res.Outputs["seen"])
	}
	if got := w.state().Resources["copy"].Outputs["value"]; got != "v2" {
		t.Errorf("copy's value after the change: %v, want v2", got)
	}
	if p := w.plan(cfg); p.HasChanges() {
		t.Errorf("plan after the change: %+v", p.Changes)
	}
}

// TestDataSourceAfterImport: an import that leaves the object as it is
// is no change pending (OpenTofu plans it as a no-op): a data source
// depending on it is read at plan; one that also updates the object is,
// and the data source is read after it, during apply.
func TestDataSourceAfterImport(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			for _, tc := range []struct {
				value    string
				deferred bool
			}{{"before", false}, {"after", true}} {
				w := newWorld(t, tp)
				w.writeItem("old-7", "old", "before")
				cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  adopted: { type: TP_item, properties: { name: old, value: ` + tc.value + ` } }
data:
  look: { type: TP_item, properties: { name: "${adopted.name}" } }
import:
  - { to: adopted, id: old-7 }
outputs:
  seen: "${look.value}"
`)
				p := w.plan(cfg)
				if c := change(p, "adopted"); c == nil || c.Action != plan.Import || (len(c.Properties) > 0) != tc.deferred {
					t.Fatalf("value %s: adopted %+v", tc.value, c)
				}
				if c := change(p, "look"); (c != nil && c.Action == plan.Read) != tc.deferred {
					t.Errorf("value %s: look %+v, want read during apply: %v", tc.value, c, tc.deferred)
				}
				if res := w.apply(cfg); res.Outputs["seen"] != tc.value {
					t.Errorf("value %s: output %v", tc.value, res.Outputs["seen"])
				}
			}
		})
	}
}

// TestDataSourceReadDuringApplyKeepsSecrets: the read of a data source
// configured from a sensitive variable, put off until apply, shows its
// configuration masked in the plan text, the PR comment and plan.json.
func TestDataSourceReadDuringApplyKeepsSecrets(t *testing.T) {
	w := newWorld(t, tfplugintest.SDK)
	cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
variables:
  pw: { type: string, sensitive: true, default: hunter2-secret }
resources:
  a: { type: TP_item, properties: { name: "${var.pw}" } }
data:
  look: { type: TP_item, properties: { name: "${var.pw}" }, dependsOn: [a] }
`)
	p := w.plan(cfg)
	look := change(p, "look")
	if look == nil || look.Action != plan.Read {
		t.Fatalf("look: %+v, want read during apply", look)
	}
	if pc := prop(look, "name"); pc == nil || !pc.Sensitive {
		t.Errorf("look's name: %+v, want masked", pc)
	}
	var txt, js bytes.Buffer
	if err := render.PlanText(&txt, p, render.TextOptions{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	if err := render.PlanJSON(&js, render.RedactPlan(p), render.JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	for what, out := range map[string]string{"plan text": txt.String(), "plan.json": js.String(), "plan comment": render.PlanComment(p, render.Meta{}, 60000)} {
		if strings.Contains(out, "hunter2") {
			t.Errorf("the %s shows the sensitive value:\n%s", what, out)
		}
	}
	w.apply(cfg)
}
