package tfprovider_test

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/policy"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
	"github.com/kyku/action/internal/value"
)

// writeItem puts an object into the test cloud by hand, as someone
// outside Kyku would have created it.
func (w *world) writeItem(id, name, val string) {
	w.t.Helper()
	data := `{"id":"` + id + `","name":"` + name + `","value":"` + val + `","revision":4}`
	if err := os.WriteFile(filepath.Join(w.cloud, id+".json"), []byte(data), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// TestImportAndDataSource: an import entry adopts an object the cloud
// holds (ImportResourceState, then ReadResource) and the update after it
// makes it match; kyku import records one by hand; a data source is read
// at plan time and its attributes flow to a resource.
func TestImportAndDataSource(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			w.writeItem("old-7", "old", "before")
			w.writeItem("hand-9", "hand", "x")
			cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  adopted: { type: TP_item, properties: { name: old, value: after } }
  manual: { type: TP_item, properties: { name: hand, value: x } }
  copy: { type: TP_item, properties: { name: copy, value: "${look.value}" } }
data:
  look: { type: TP_item, properties: { name: hand } }
import:
  - { to: adopted, id: old-7 }
`)
			e := w.engine(cfg)
			if _, err := e.Import(t.Context(), cfg, "manual", "hand-9"); err != nil {
				t.Fatalf("kyku import: %v", err)
			}
			if st := w.state(); st.Resources["manual"].Outputs["revision"] != 4.0 {
				t.Errorf("imported by hand: %+v", st.Resources["manual"])
			}
			p := w.plan(cfg)
			adopted := change(p, "adopted")
			if adopted == nil || adopted.Action != plan.Import || adopted.ProviderID != "old-7" || prop(adopted, "value").New != "after" {
				t.Fatalf("import plan: %+v", adopted)
			}
			if c := change(p, "copy"); c == nil || prop(c, "value").New != "x" {
				t.Errorf("copy reads the data source's value: %+v", c)
			}
			if m := change(p, "manual"); m.Action != plan.NoOp {
				t.Errorf("the hand-imported resource: %+v", m)
			}
			w.apply(cfg)
			st := w.state()
			if st.Resources["adopted"].ProviderID != "old-7" || st.Resources["adopted"].Outputs["value"] != "after" || st.Resources["copy"].Outputs["value"] != "x" {
				t.Errorf("after apply: adopted %+v copy %+v", st.Resources["adopted"].Outputs, st.Resources["copy"].Outputs)
			}
			if _, ok := st.Resources["look"]; ok {
				t.Error("a data source is in state")
			}
			if p := w.plan(cfg); p.HasChanges() {
				t.Errorf("plan after apply: %+v", p.Changes)
			}
		})
	}
}

// TestCrashMidApplyKeepsWhatSucceeded: the provider process dies in the
// middle of an apply; what finished before is in state, the rest failed
// or was skipped. The create the provider died in may have made an
// object: the next run refuses to create it again until told that it did
// not (here it did not), then (a new process) converges.
func TestCrashMidApplyKeepsWhatSucceeded(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a: { type: TP_item, properties: { name: a } }
  boom: { type: TP_crash, properties: { name: boom }, dependsOn: [a] }
  b: { type: TP_item, properties: { name: b, value: "${a.id}" }, dependsOn: [boom] }
`)
			res, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Err() == nil || !tfplugin.IsCrash(res.Failed[0].Err) || res.Failed[0].Name != "boom" {
				t.Fatalf("apply: %v, want boom to fail with a crash", res.Err())
			}
			st := w.state()
			if st.Resources["a"] == nil || st.Resources["a"].ProviderID != "a-1" || st.Resources["b"] != nil || st.Resources["boom"] != nil {
				t.Fatalf("state after the crash: %v", st.Names())
			}
			var ie *engine.InterruptedError
			if _, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil); !errors.As(err, &ie) || !slices.Equal(ie.Names, []string{"boom"}) {
				t.Fatalf("re-run: %v, want boom refused as interrupted", err)
			}
			res, err = w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true, ForgetInterrupted: []string{"boom"}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Succeeded) != 2 {
				t.Errorf("re-run: %+v", res.Succeeded)
			}
			if p := w.plan(cfg); p.HasChanges() {
				t.Errorf("plan after the re-run: %+v", p.Changes)
			}
		})
	}
}

// TestSavedPlanAppliesExactlyItsPlannedState: a saved plan carries the
// provider's planned state and private data; apply --plan plans again
// and refuses when those bytes differ (an edited file whose digest was
// computed again), applying nothing.
func TestSavedPlanAppliesExactlyItsPlannedState(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	cfg := w.parse(strings.ReplaceAll(lifecycle, "VALUE", "v1"))
	p := w.plan(cfg)
	data, err := plan.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := plan.Decode("plan.json", data)
	if err != nil {
		t.Fatal(err)
	}
	a := change(saved, "a")
	if a.Planned == nil || !bytes.Equal(a.Planned.State, change(p, "a").Planned.State) {
		t.Fatalf("the saved plan lost a's planned state: %+v", a.Planned)
	}
	// An attacker edits the planned bytes (a value inside them) and
	// rewrites the file's checksum.
	a.Planned.State = bytes.Replace(a.Planned.State, []byte("v1"), []byte("v9"), 1)
	tampered, err := plan.Decode("plan.json", mustEncode(t, saved))
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.engine(cfg).Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, tampered)
	if !engine.IsMismatch(err) {
		t.Fatalf("apply of an edited plan: %v, want a mismatch", err)
	}
	if left, _ := filepath.Glob(filepath.Join(w.cloud, "*.json")); len(left) != 0 {
		t.Errorf("an edited plan changed the cloud: %v", left)
	}
	fresh, err := plan.Decode("plan.json", data)
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.engine(cfg).Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, fresh)
	if err != nil || res.Err() != nil {
		t.Fatalf("apply of the saved plan: %v %v", err, res.Err())
	}
	if st := w.state(); st.Resources["a"].Outputs["value"] != "v1" || st.Resources["b"].Outputs["value"] != "rev-1" {
		t.Errorf("after apply --plan: %+v", st.Resources["a"].Outputs)
	}
}

func mustEncode(t *testing.T, p *plan.Plan) []byte {
	t.Helper()
	b, err := plan.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSensitiveAttributesNeverInClear: an attribute the provider's
// schema marks sensitive, and a property that reads one, are masked in
// the plan text, the PR comment and plan.json; the saved plan (and
// state) hold them, as Terraform's do.
func TestSensitiveAttributesNeverInClear(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a: { type: TP_item, properties: { name: a, secret: hunter2-secret } }
  b: { type: TP_item, properties: { name: b, value: "${a.secret}" } }
`)
			w.apply(cfg)
			cfg = w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a: { type: TP_item, properties: { name: a, secret: hunter3-secret } }
  b: { type: TP_item, properties: { name: b, value: "${a.secret}" } }
`)
			p := w.plan(cfg)
			if b := change(p, "b"); prop(b, "value") == nil || !prop(b, "value").Sensitive {
				t.Errorf("b's value reads a sensitive attribute and is not masked: %+v", b)
			}
			var text, js bytes.Buffer
			if err := render.PlanText(&text, p, render.TextOptions{}); err != nil {
				t.Fatal(err)
			}
			md := render.PlanComment(p, render.Meta{}, 60000)
			if err := render.PlanJSON(&js, render.RedactPlan(p), render.JSONOptions{}); err != nil {
				t.Fatal(err)
			}
			for what, out := range map[string]string{"text": text.String(), "comment": md, "plan.json": js.String()} {
				if strings.Contains(out, "hunter") {
					t.Errorf("the %s shows a sensitive value:\n%s", what, out)
				}
			}
			if !strings.Contains(text.String(), "(sensitive)") {
				t.Errorf("the text does not say what it masks:\n%s", text.String())
			}
		})
	}
}

// TestOutputOfASensitiveAttributeRefused: an output that reads an
// attribute the provider's schema marks sensitive would be printed in
// clear: the plan refuses it at the output's position, unless it is
// declared sensitive, as Terraform does; declared, it is masked where
// outputs are listed and its value is in state.
func TestOutputOfASensitiveAttributeRefused(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a: { type: TP_item, properties: { name: a, secret: hunter2-secret } }
outputs:
  leak: "${a.secret}"
  fine: "${a.name}"
`)
	_, err := w.engine(cfg).Plan(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), `kyku.yaml:6:3: output "leak" reads ${a.secret}, which is sensitive (its provider's schema says so, or it holds a sensitive value): `+
		`declare it sensitive to have it masked wherever outputs are shown (leak: { value: "${a.secret}", sensitive: true })`) ||
		strings.Contains(err.Error(), "fine") {
		t.Errorf("plan: %v", err)
	}

	// An attribute that holds a sensitive variable's value is sensitive
	// too, whatever the schema says of it.
	cfg = w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
variables:
  pw: { type: string, sensitive: true, default: hunter2-secret }
resources:
  a: { type: TP_item, properties: { name: a, value: "${var.pw}" } }
outputs:
  leak: "${a.value}"
`)
	_, err = w.engine(cfg).Plan(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), `kyku.yaml:8:3: output "leak" reads ${a.value}, which is sensitive (its provider's schema says so, or it holds a sensitive value)`) {
		t.Errorf("plan of an output reading an attribute set from a sensitive variable: %v", err)
	}

	cfg = w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a: { type: TP_item, properties: { name: a, secret: hunter2-secret } }
outputs:
  leak: { value: "${a.secret}", sensitive: true, description: the item's secret }
  fine: "${a.name}"
`)
	res := w.apply(cfg)
	if got := res.Outputs["leak"]; got != "hunter2-secret" {
		t.Errorf("output leak = %v, want the secret (kyku output leak prints it)", got)
	}
	if got := cfg.SensitiveOutputs(); !got["leak"] || got["fine"] {
		t.Errorf("sensitive outputs %v, want leak only", got)
	}
	var text bytes.Buffer
	if err := render.PlanText(&text, res.Plan, render.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	md := render.ApplyComment(render.ApplyResult{Outputs: res.Outputs, SensitiveOutputs: cfg.SensitiveOutputs()}, render.Meta{}, 60000)
	for what, out := range map[string]string{"plan text": text.String(), "apply comment": md} {
		if strings.Contains(out, "hunter2") {
			t.Errorf("the %s shows the sensitive output:\n%s", what, out)
		}
	}
	if !strings.Contains(md, "| `leak` | `(sensitive)` |") {
		t.Errorf("the apply comment does not list the output masked:\n%s", md)
	}
}

// TestDataSourceOfUnknownsReadDuringApply: a data source whose
// configuration depends on a value known only after apply is no longer
// refused: it is read during apply, as OpenTofu reads it.
func TestDataSourceOfUnknownsReadDuringApply(t *testing.T) {
	w := newWorld(t, tfplugintest.SDK)
	cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a: { type: TP_item, properties: { name: a } }
data:
  look: { type: TP_item, properties: { name: "${a.id}" } }
`)
	p, err := w.engine(cfg).Plan(t.Context(), cfg)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if c := change(p, "look"); c == nil || c.Action != plan.Read || c.Reason != "will be read during apply: its configuration refers to values not yet known" {
		t.Errorf("look: %+v", c)
	}
}

// TestPathsReadIntoAttributes: ${res.attr[0].field} and ${res.attr.key}
// read into a provider's nested attributes, in properties and outputs;
// a path the attribute's type cannot take is refused at its position
// before anything is planned, and one the value cannot take (an index
// past the end) when the value is known, at plan.
func TestPathsReadIntoAttributes(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	const head = `providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a: { type: TP_item, properties: { name: a, tags: { env: prod, team: core }, endpoints: [ { host: db.internal, port: 5432 } ] } }
`
	cfg := w.parse(head + `  b: { type: TP_item, properties: { name: b, value: "${a.endpoints[0].host}:${a.endpoints[0].port}", tags: { env: "${a.tags.env}", team: '${a.tags["team"]}' } } }
outputs:
  host: "${a.endpoints[0].host}"
  hosts: "${a.endpoints[*].host}"
`)
	p := w.plan(cfg)
	if pc := prop(change(p, "b"), "value"); pc == nil || pc.New != "db.internal:5432" {
		t.Errorf("b.value planned as %+v, want db.internal:5432", pc)
	}
	res := w.apply(cfg)
	if got := w.state().Resources["b"].Outputs; got["value"] != "db.internal:5432" || !value.Equal(got["tags"], map[string]any{"env": "prod", "team": "core"}) {
		t.Errorf("b in state: %v", got)
	}
	if res.Outputs["host"] != "db.internal" || !value.Equal(res.Outputs["hosts"], []any{"db.internal"}) {
		t.Errorf("outputs %v, want host db.internal and hosts [db.internal]", res.Outputs)
	}

	for _, tc := range []struct{ prop, want string }{
		{`value: "${a.endpoints.host}"`, `kyku.yaml:5:50: resource "b" (fwtest_item): property "value": "${a.endpoints.host}": ["host"]: a list has elements by number, not by key`},
		{`value: "${a.tags[0]}"`, `property "value": "${a.tags[0]}": [0]: a map has entries by key, not by number`},
		{`value: "${a.endpoints[0].hots}"`, `"${a.endpoints[0].hots}": ["hots"]: the object has no attribute "hots" (did you mean "host"?)`},
		{`value: "x${a.name[0]}"`, `"${a.name[0]}": [0]: a string has nothing to read into`},
		{`tags: { a: "${a.endpoints[*].hots}" }`, `"${a.endpoints[*].hots}": ["hots"]: the object has no attribute "hots" (did you mean "host"?)`},
		{`value: "${a.endpoints[3].host}"`, `kyku.yaml:5:50: resource "b": property "value": ${a.endpoints[3].host}: [3]: index out of range (the list has 1 element)`},
	} {
		cfg := w.parse(head + "  b: { type: TP_item, properties: { name: b, " + tc.prop + " } }\n")
		_, err := w.engine(cfg).Plan(t.Context(), cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: plan error %v\nwant %s", tc.prop, err, tc.want)
		}
	}
	cfg = w.parse(head + "outputs:\n  far: \"${a.endpoints[5].host}\"\n")
	if _, err := w.engine(cfg).Plan(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), `kyku.yaml:6:3: output "far": ${a.endpoints[5].host}: [5]: index out of range`) {
		t.Errorf("an output's path past the end: %v", err)
	}
}

// TestPathErrorKnownOnlyAtApply: a path into a computed list that is
// unknown at plan (a's aliases are known once a exists) is checked when
// the value is known, at apply: b, which reads past its end, fails with
// the path's error and is not created; a stays created and in state, and
// c, which reads a element that is there, is created with it. The next
// plan, with a in state, refuses b's path before anything runs.
func TestPathErrorKnownOnlyAtApply(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a: { type: TP_item, properties: { name: a } }
  b: { type: TP_item, properties: { name: b, value: "${a.aliases[5]}" } }
  c: { type: TP_item, properties: { name: c, value: "${a.aliases[1]}" } }
`)
	if pc := prop(change(w.plan(cfg), "b"), "value"); pc == nil || pc.New != value.Unknown {
		t.Fatalf("b.value planned as %+v, want known after apply", pc)
	}
	res, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if len(res.Failed) != 1 || res.Failed[0].Name != "b" ||
		!strings.Contains(res.Failed[0].Err.Error(), `${a.aliases[5]}: [5]: index out of range (the list has 2 elements)`) {
		t.Errorf("failed %+v, want b with the path's error", res.Failed)
	}
	st := w.state()
	a, c := st.Resources["a"], st.Resources["c"]
	if a == nil || c == nil || st.Resources["b"] != nil {
		t.Fatalf("state holds %v, want a and c", slices.Sorted(maps.Keys(st.Resources)))
	}
	if want := "a-" + a.ProviderID; c.Outputs["value"] != want {
		t.Errorf("c's value %v, want %s", c.Outputs["value"], want)
	}
	_, err = w.engine(cfg).Plan(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), `kyku.yaml:5:50: resource "b": property "value": ${a.aliases[5]}: [5]: index out of range (the list has 2 elements)`) {
		t.Errorf("plan after the apply: %v", err)
	}
}

// TestCreateBeforeDestroyOfAProvidersResource: createBeforeDestroy: true
// orders a RequiresReplace as Terraform's create_before_destroy does. The
// test cloud will not delete an "undeletable" item: destroying first, the
// replace fails before anything is made and state keeps the object;
// created first, the replacement exists and is in state, and the object
// stays in state as deposed for the next run to destroy.
func TestCreateBeforeDestroyOfAProvidersResource(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			const head = "providers:\n  TP: { source: kyku/TP, config: { dir: CLOUD } }\nresources:\n  a:\n    type: TP_item\n"
			w.apply(w.parse(head + "    properties: { name: a, value: undeletable }\n"))
			first := w.state().Resources["a"].ProviderID

			renamed := head + "    properties: { name: a2, value: undeletable }\n"
			cfg := w.parse(renamed)
			if a := change(w.plan(cfg), "a"); a.Action != plan.Replace || a.ReplaceOrder != plan.DestroyBeforeCreate {
				t.Fatalf("without createBeforeDestroy: %+v", a)
			}
			res, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
			if err != nil || len(res.Failed) != 1 {
				t.Fatalf("apply destroying first: %v, failed %v", err, res.Failed)
			}
			if st := w.state(); st.Resources["a"].ProviderID != first || len(st.Resources) != 1 {
				t.Fatalf("after the failed destroy, state %v (a %s), want a as it was", st.Names(), st.Resources["a"].ProviderID)
			}

			cfg = w.parse(strings.Replace(renamed, "    type: TP_item\n", "    type: TP_item\n    createBeforeDestroy: true\n", 1))
			p := w.plan(cfg)
			a := change(p, "a")
			if a.Action != plan.Replace || a.ReplaceOrder != plan.CreateBeforeDestroy || a.CloudName != "t-a" || a.PriorCloudName != "" {
				t.Fatalf("with createBeforeDestroy: %+v", a)
			}
			var text bytes.Buffer
			if err := render.PlanText(&text, p, render.TextOptions{}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), "# create-before-destroy: the replacement is made first, what uses") {
				t.Errorf("plan text:\n%s", text.String())
			}
			res, err = w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
			if err != nil || len(res.Failed) != 1 {
				t.Fatalf("apply creating first: %v, failed %v", err, res.Failed)
			}
			st := w.state()
			repl, old := st.Resources["a"], st.Resources[plan.DeposedName("a")]
			if repl == nil || repl.ProviderID == first || repl.Outputs["name"] != "a2" || old == nil || old.ProviderID != first {
				t.Fatalf("state %v: want a the replacement and the old item deposed", st.Names())
			}
			if _, err := os.Stat(filepath.Join(w.cloud, repl.ProviderID+".json")); err != nil {
				t.Errorf("the replacement is not in the cloud: %v", err)
			}
			if d := change(w.plan(cfg), plan.DeposedName("a")); d == nil || d.Action != plan.Destroy {
				t.Errorf("the next plan does not destroy the deposed item: %+v", d)
			}
		})
	}
}

// TestReplaceRequestedOfAProvidersResource: --replace of a provider's
// resource plans its replacement as a create with the provider (as
// Terraform's -replace does), shows the prior values against it, carries
// the provider's plan of the new object through a saved plan, and makes a
// new object; a data source is refused.
func TestReplaceRequestedOfAProvidersResource(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a: { type: TP_item, properties: { name: a, value: v } }
  b: { type: TP_item, properties: { name: b, value: "${a.id}" } }
`)
			w.apply(cfg)
			before := w.state()
			e := w.engine(cfg)
			p, err := e.PlanWith(t.Context(), cfg, engine.PlanOptions{Replace: []string{"a"}})
			if err != nil {
				t.Fatal(err)
			}
			a, b := change(p, "a"), change(p, "b")
			if a.Action != plan.Replace || a.Reason != "replacement requested (--replace)" || b.Action != plan.Update {
				t.Fatalf("plan: a %s (%q), b %s; want a replaced as requested, b updated", a.Action, a.Reason, b.Action)
			}
			var id *plan.PropChange
			for i := range a.Properties {
				if a.Properties[i].Path == "id" {
					id = &a.Properties[i]
				}
			}
			if id == nil || id.Old != before.Resources["a"].ProviderID || !id.Unknown {
				t.Errorf("a's id change %+v: want the old id → known after apply", id)
			}
			res, err := e.Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, roundTripPlan(t, p))
			if err != nil || res.Err() != nil {
				t.Fatalf("apply: %v / %v", err, res.Err())
			}
			after := w.state()
			if got, old := after.Resources["a"].ProviderID, before.Resources["a"].ProviderID; got == old {
				t.Errorf("a kept id %s: not replaced", old)
			}
			if got := after.Resources["b"].Outputs["value"]; got != after.Resources["a"].ProviderID {
				t.Errorf("b's value is %v, want the replacement's id %s", got, after.Resources["a"].ProviderID)
			}
			if _, err := os.Stat(filepath.Join(w.cloud, before.Resources["a"].ProviderID+".json")); !os.IsNotExist(err) {
				t.Errorf("the replaced item is still in the cloud: %v", err)
			}
			if p := w.plan(cfg); p.HasChanges() {
				t.Errorf("the next plan has changes")
			}
			withData := w.parse("providers:\n  TP: { source: kyku/TP, config: { dir: CLOUD } }\ndata:\n  look: { type: TP_item, properties: { name: a } }\n")
			if _, err := w.engine(withData).PlanWith(t.Context(), withData, engine.PlanOptions{Replace: []string{"look"}}); err == nil || !strings.Contains(err.Error(), `--replace "look": a data source is read, not replaced`) {
				t.Errorf("--replace of a data source: %v", err)
			}
		})
	}
}

// roundTripPlan is p written to a plan file and read back.
func roundTripPlan(t *testing.T, p *plan.Plan) *plan.Plan {
	t.Helper()
	saved, err := plan.Decode("plan.json", mustEncode(t, p))
	if err != nil {
		t.Fatal(err)
	}
	return saved
}

// TestSecondConfigurationOfAProvider: a provider declared twice, under a
// local name of its own the second time (Terraform's alias), runs as two
// processes with their own configuration; the second one's types take
// its name as prefix (west_item is the provider's TP_item), in plans,
// state, imports and data sources, and an object it made is destroyed
// through it once its resource is gone from the configuration.
func TestSecondConfigurationOfAProvider(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			west := filepath.Join(w.cloud, "west")
			if err := os.MkdirAll(west, 0o755); err != nil {
				t.Fatal(err)
			}
			hand := `{"id":"hand-9","name":"hand","value":"from-west","revision":4}`
			if err := os.WriteFile(filepath.Join(west, "hand-9.json"), []byte(hand), 0o600); err != nil {
				t.Fatal(err)
			}
			const head = `providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
  west: { source: kyku/TP, config: { dir: CLOUD/west } }
resources:
  here: { type: TP_item, properties: { name: here, value: a } }
`
			cfg := w.parse(head + `  there: { type: west_item, properties: { name: there, value: "${here.id}" } }
  copy: { type: TP_item, properties: { name: copy, value: "${look.value}" } }
  adopted: { type: west_item, properties: { name: hand, value: from-west } }
data:
  look: { type: west_item, properties: { name: hand } }
import:
  - { to: adopted, id: hand-9 }
`)
			p := w.plan(cfg)
			if c := change(p, "there"); c == nil || c.Type != "west_item" {
				t.Fatalf("there planned as %+v, want a west_item", c)
			}
			if pc := prop(change(p, "copy"), "value"); pc == nil || pc.New != "from-west" {
				t.Errorf("copy.value planned as %+v: the data source must be read through west", pc)
			}
			// A policy written for the provider's own type judges the
			// renamed one too: renaming is no way around a rule.
			in, err := policy.NewInput(p)
			if err != nil {
				t.Fatal(err)
			}
			rules := &policy.Set{Modules: []policy.Module{{Name: "p/items.rego", Data: []byte(`package kyku
deny contains msg if {
	some c in input.changes
	c.type == "` + tp.Type + `_item"
	c.action == "create"
	msg := sprintf("no new items: %s", [c.resourceId])
}
deny contains msg if {
	some name, r in input.resources
	r.type == "` + tp.Type + `_item"
	r.localType == "west_item"
	msg := sprintf("resource %s", [name])
}
`)}}}
			res, err := rules.Evaluate(t.Context(), in, policy.DefaultTimeout)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"no new items: there", "no new items: here", "resource there", "resource adopted"} {
				if !slices.Contains(res.Deny, want) {
					t.Errorf("policy denials %q lack %q", res.Deny, want)
				}
			}
			if p.OwnTypes["west_item"] != tp.Type+"_item" || p.OwnTypes[tp.Type+"_item"] != "" {
				t.Errorf("plan's own types %v", p.OwnTypes)
			}

			w.apply(cfg)
			st := w.state()
			if r := st.Resources["there"]; r == nil || r.Type != "west_item" || !fileExists(filepath.Join(west, r.ProviderID+".json")) || fileExists(filepath.Join(w.cloud, r.ProviderID+".json")) {
				t.Fatalf("there in state %+v: want a west_item in the west cloud only", r)
			}
			if r := st.Resources["here"]; r == nil || !fileExists(filepath.Join(w.cloud, r.ProviderID+".json")) || fileExists(filepath.Join(west, r.ProviderID+".json")) {
				t.Fatalf("here in state %+v: want a TP_item in the first cloud only", r)
			}
			if r := st.Resources["adopted"]; r == nil || r.Type != "west_item" || r.ProviderID != "hand-9" || r.Outputs["revision"] != 4.0 {
				t.Errorf("imported through west: %+v", r)
			}
			thereID := st.Resources["there"].ProviderID

			// there gone from the configuration: destroyed in the west cloud.
			cfg = w.parse(head)
			p = w.plan(cfg)
			if c := change(p, "there"); c == nil || c.Action != plan.Destroy || c.Type != "west_item" {
				t.Fatalf("there removed: planned %+v, want its destroy", c)
			}
			w.apply(cfg)
			if fileExists(filepath.Join(west, thereID+".json")) {
				t.Error("there's object is still in the west cloud after its destroy")
			}
			if r := w.state().Resources["here"]; r == nil || !fileExists(filepath.Join(w.cloud, r.ProviderID+".json")) {
				t.Error("here was touched by the destroy of there")
			}

			// here moved to the other configuration: replaced, its old
			// object destroyed through the configuration that made it.
			hereID := w.state().Resources["here"].ProviderID
			moved := w.parse(strings.Replace(head, "here: { type: TP_item", "here: { type: west_item", 1))
			if c := change(w.plan(moved), "here"); c == nil || c.Action != plan.Replace || c.PriorType != tp.Type+"_item" {
				t.Fatalf("here moved to west: planned %+v, want a replace from %s_item", c, tp.Type)
			}
			w.apply(moved)
			if r := w.state().Resources["here"]; r == nil || r.Type != "west_item" || !fileExists(filepath.Join(west, r.ProviderID+".json")) || fileExists(filepath.Join(w.cloud, hereID+".json")) {
				t.Errorf("here after its move: %+v; its old object should be gone from the first cloud", r)
			}

			bad := w.parse(head + "  x: { type: west_itme, properties: { name: x } }\n")
			if _, err := w.engine(bad).Plan(t.Context(), bad); err == nil || !strings.Contains(err.Error(), `"west_item"`) {
				t.Errorf("a misspelt type of the second configuration: %v, want a did-you-mean west_item", err)
			}
		})
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
