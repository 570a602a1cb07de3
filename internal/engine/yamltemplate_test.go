package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

const templateConfig = `provider: sim
variables:
  env: { type: string, default: prod }
  zones: { type: list, default: [ a, b ] }
  sizes: { type: map, default: { prod: large, dev: small } }
resources:
  main-vpc:
    type: Vpc
    properties:
      cidr: '${cidrsubnet("10.0.0.0/8", 8, 1)}'
      tags:
        name: "${upper(var.env)}"
        json: '${jsonencode({ env = var.env, zones = var.zones })}'
  web:
    type: Vm
    count: "${length(var.zones)}"
    properties:
      network: "${main-vpc}"
      image: debian-12
      size: '${lookup(var.sizes, var.env, "small")}'
      tags:
        name: '${format("web-%02d", count.index)}'
        kind: '${var.env == "prod" ? "live" : "test"}'
        zones: '${join(",", [for z in var.zones : upper(z)])}'
  edge:
    type: Vm
    properties:
      network: "${main-vpc}"
      image: debian-12
      tags:
        first: "${upper(web[0].publicIp)}"
        ips: '${join(",", web[*].publicIp)}'
        net: "net-${lower(main-vpc)}"
        script: |
          %{ for ip in web[*].privateIp }allow ${ip};
          %{ endfor ~}
outputs:
  ips: '${join(" ", web[*].publicIp)}'
`

// TestYAMLTemplatesPlannedAndApplied: a kyku.yaml using OpenTofu's
// functions, a conditional, for expressions, a splat and template
// directives plans through the engine with the sim: what the
// configuration knows is planned as its value, what reads attributes
// known only after apply is unknown in the plan, flows through the
// functions at apply, and orders the graph (edge after both webs).
func TestYAMLTemplatesPlannedAndApplied(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	cfg := parse(t, templateConfig)
	p := mustPlan(t, e, cfg)

	vpc := find(t, p, "main-vpc")
	for path, want := range map[string]any{"cidr": "10.1.0.0/16", "tags.name": "PROD", "tags.json": `{"env":"prod","zones":["a","b"]}`} {
		if got, _ := valueAt(vpc.Properties, path); got != want {
			t.Errorf("main-vpc %s planned %#v, want %#v", path, got, want)
		}
	}
	web1 := find(t, p, "web[1]")
	for path, want := range map[string]any{"size": "large", "tags.name": "web-01", "tags.kind": "live", "tags.zones": "A,B"} {
		if got, _ := valueAt(web1.Properties, path); got != want {
			t.Errorf("web[1] %s planned %#v, want %#v", path, got, want)
		}
	}
	edge := find(t, p, "edge")
	for _, path := range []string{"tags.first", "tags.ips", "tags.net", "tags.script"} {
		if got, _ := valueAt(edge.Properties, path); got != value.Unknown {
			t.Errorf("edge %s planned %#v, want it known after apply", path, got)
		}
	}

	mustApply(t, e, cfg)
	st := w.state()
	ip := func(addr, out string) string { return st.Resources[addr].Outputs[out].(string) }
	tags := st.Resources["edge"].Config["tags"].(map[string]any)
	want := map[string]any{
		"first":  strings.ToUpper(ip("web[0]", "publicIp")),
		"ips":    ip("web[0]", "publicIp") + "," + ip("web[1]", "publicIp"),
		"net":    "net-" + strings.ToLower(st.Resources["main-vpc"].ProviderID),
		"script": "allow " + ip("web[0]", "privateIp") + ";\nallow " + ip("web[1]", "privateIp") + ";\n",
	}
	if diff := cmp.Diff(want, tags); diff != "" {
		t.Errorf("edge's tags as applied (-want +got):\n%s", diff)
	}
	if got, want := st.Outputs["ips"], ip("web[0]", "publicIp")+" "+ip("web[1]", "publicIp"); got != want {
		t.Errorf("output ips = %#v, want %q", got, want)
	}

	// Planned again: nothing changes, every value is known now.
	p = mustPlan(t, e, parse(t, templateConfig))
	for _, c := range p.Changes {
		if c.Action != plan.NoOp {
			t.Errorf("%s: %s after apply, want no-op", c.ResourceID, c.Action)
		}
	}
}

// TestYAMLTemplateErrorAtPlan: a function refusing a value known at plan
// (a provider ID that is no CIDR) is an error at the YAML file:line:col
// of the template, with its source line, and nothing is planned.
func TestYAMLTemplateErrorAtPlan(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	base := `provider: sim
resources:
  main-vpc: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }
`
	mustApply(t, e, parse(t, base))
	cfg := parse(t, base+`  web:
    type: Vm
    properties:
      network: "${main-vpc}"
      image: debian-12
      tags: { net: "${cidrhost(main-vpc, 1)}" }
`)
	_, err := e.Plan(t.Context(), cfg)
	var ds diag.Diagnostics
	if !errors.As(err, &ds) || len(ds) != 1 {
		t.Fatalf("want one diagnostic, got %v", err)
	}
	d := ds[0]
	if d.Pos != (diag.Pos{File: "kyku.yaml", Line: 9, Col: 23}) {
		t.Errorf("at %s, want kyku.yaml:9:23", d.Pos)
	}
	if want := `resource "web": property "tags.net": Error in function call: Call to function "cidrhost" failed: invalid CIDR expression`; !strings.HasPrefix(d.Message, want) {
		t.Errorf("message %q, want it to start %q", d.Message, want)
	}
	if !strings.Contains(d.Source, `tags: { net: "${cidrhost(main-vpc, 1)}" }`) {
		t.Errorf("source line:\n%s", d.Source)
	}
}

// TestYAMLTemplateSavedPlan: a plan file keeps a template computing with
// resources as a description, so its saved plan is applied with the
// configuration read again (refused without it, changing nothing), and
// then applies what it showed.
func TestYAMLTemplateSavedPlan(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	cfg := parse(t, templateConfig)
	data, err := plan.Encode(mustPlan(t, e, cfg))
	if err != nil {
		t.Fatal(err)
	}
	saved, err := plan.Decode("plan.kyku", data)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, saved)
	if err == nil || !strings.Contains(err.Error(), "applied with that configuration") {
		t.Fatalf("saved plan applied without its configuration: %v", err)
	}
	if got := w.cloud(); len(got) != 0 {
		t.Fatalf("a refused apply created %v", got)
	}
	res, err := e.Apply(t.Context(), parse(t, templateConfig), engine.ApplyOptions{AutoApprove: true}, saved)
	if err != nil || res.Err() != nil {
		t.Fatalf("apply: %v %v", err, res.Err())
	}
	st := w.state()
	tags := st.Resources["edge"].Config["tags"].(map[string]any)
	if want := strings.ToUpper(st.Resources["web[0]"].Outputs["publicIp"].(string)); tags["first"] != want {
		t.Errorf("edge tags.first = %#v, want %q", tags["first"], want)
	}
}
