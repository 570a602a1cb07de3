package tfprovider_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/policy"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// Secrets keep their mask wherever they flow: into one of Kyku's types,
// through a data source, into the policy input of a targeted plan.

func TestKykuTypeReadingASensitiveAttributeIsMasked(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a: { type: TP_item, properties: { name: a, secret: hunter2-secret } }
  key: { type: SshKey, properties: { publicKey: "ssh-ed25519 ${a.secret}", tags: { s: "${a.secret}" } } }
`)
	p := w.plan(cfg)
	var text, js bytes.Buffer
	if err := render.PlanText(&text, p, render.TextOptions{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	if err := render.PlanJSON(&js, render.RedactPlan(p), render.JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	in, err := policy.NewInput(p)
	if err != nil {
		t.Fatal(err)
	}
	input, _ := json.Marshal(in)
	for what, out := range map[string]string{"plan text": text.String(), "plan comment": render.PlanComment(p, render.Meta{}, 60000), "plan.json": js.String(), "policy input": string(input)} {
		if strings.Contains(out, "hunter2") {
			t.Errorf("the %s shows the sensitive attribute:\n%s", what, out)
		}
	}
	if !strings.Contains(js.String(), `"publicKey"`) {
		t.Errorf("plan.json does not list the masked property:\n%s", js.String())
	}
	w.apply(cfg)
	if got := w.state().Resources["key"].Sensitive; strings.Join(got, ",") != "publicKey,tags" {
		t.Errorf("state records %v as secret, want publicKey and tags", got)
	}
}

func TestDataSourceConfiguredFromASensitiveVariableStaysSensitive(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	w.writeItem("hand-9", "hunter2-secret", "x")
	const head = `providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
variables:
  pw: { type: string, sensitive: true, default: hunter2-secret }
resources:
  copy: { type: TP_item, properties: { name: copy, value: "${look.name}" } }
data:
  look: { type: TP_item, properties: { name: "${var.pw}" } }
`
	cfg := w.parse(head + "outputs:\n  leak: \"${look.name}\"\n")
	if _, err := w.engine(cfg).Plan(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), `output "leak" reads ${look.name}, which is sensitive`) {
		t.Errorf("an output reading what a sensitive variable configured: %v", err)
	} else if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the refusal shows the secret: %v", err)
	}
	cfg = w.parse(head + "outputs:\n  kept: { value: \"${look.name}\", sensitive: true }\n")
	p := w.plan(cfg)
	var js bytes.Buffer
	if err := render.PlanJSON(&js, render.RedactPlan(p), render.JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	res := w.apply(cfg)
	applied := render.ApplyComment(render.ApplyResult{Outputs: res.Outputs, SensitiveOutputs: cfg.SensitiveOutputs()}, render.Meta{}, 60000)
	for what, out := range map[string]string{"plan.json": js.String(), "plan comment": render.PlanComment(p, render.Meta{}, 60000), "apply comment": applied} {
		if strings.Contains(out, "hunter2") {
			t.Errorf("the %s shows the sensitive value:\n%s", what, out)
		}
	}
}

func TestPolicyInputOfAResourceLeftOutByTarget(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a: { type: TP_item, properties: { name: a, secret: hunter2-secret } }
  b: { type: TP_item, properties: { name: b } }
  key: { type: SshKey, properties: { publicKey: "${a.secret}" } }
`)
	p, err := w.engine(cfg).PlanWith(t.Context(), cfg, engine.PlanOptions{Targets: []string{"b"}})
	if err != nil {
		t.Fatal(err)
	}
	in, err := policy.NewInput(p)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(in)
	if strings.Contains(string(data), "hunter2") {
		t.Errorf("the policy input shows a sensitive attribute of what the targeted plan leaves out:\n%s", data)
	}
	if in.Resources["b"].Properties["name"] != "b" || !strings.HasSuffix(in.Resources["a"].Type, "_item") || len(in.Resources["a"].Properties) != 0 {
		t.Errorf("input resources: %+v", in.Resources)
	}
	if got := in.Resources["key"].Properties["publicKey"]; got != "(sensitive)" && got != "(sensitive value)" {
		t.Errorf("key's publicKey in the input = %v, want masked", got)
	}
}

// TestPathErrorIntoASecretSaysNothingOfIt: a path that does not apply to
// a secret attribute (a map set from a sensitive variable) is refused at
// its position without the map's keys.
func TestPathErrorIntoASecretSaysNothingOfIt(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
variables:
  labels: { type: map, sensitive: true, default: { hunter2-key: v } }
resources:
  a: { type: TP_item, properties: { name: a, tags: "${var.labels}" } }
  b: { type: TP_item, properties: { name: b, value: "${a.tags.nope}" } }
`)
	_, err := w.engine(cfg).Plan(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), `${a.tags.nope}: ["nope"]: no such key (sensitive)`) || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("plan: %v\nwant the path refused, saying nothing of the map", err)
	}
}
