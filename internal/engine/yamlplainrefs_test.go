package engine_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// plainRefsConfig reads resources plainly (a whole reference, every
// instance's, one inside text, two in one string), next to a template
// computing with them: all of them one evaluator's.
const plainRefsConfig = `provider: sim
resources:
  net:
    type: Vpc
    properties: { cidr: 10.0.0.0/16 }
  sub:
    type: Subnet
    properties: { network: "${net}", cidr: 10.0.1.0/24, zone: sim-a }
  sg:
    type: SecurityGroup
    count: 2
    properties:
      network: "${net}"
      ingress: [ { port: 443, cidr: 0.0.0.0/0 } ]
  web:
    type: Vm
    count: 2
    properties:
      network: "${net}"
      subnet: "${sub}"
      securityGroups: "${sg[*]}"
      image: debian-12
      tags:
        name: '${format("web-%d", count.index)}'
        net: "net-${net}"
  edge:
    type: Vm
    properties:
      network: "${net}"
      subnet: "${sub}"
      image: debian-12
      tags:
        ip: "${web[0].publicIp}"
        both: "${web[0].publicIp},${web[1].privateIp}"
        loud: "${upper(web[1].publicIp)}"
outputs:
  ip: "${edge.publicIp}"
  net: "vpc ${net}"
`

// TestYAMLPlainReferencesPlanAndApply: templates that read resources
// plainly are templates the engine evaluates (not strings it scans):
// they order the graph, are unknown in the plan where they read what
// apply makes, and apply as the reference form always did (a whole
// reference keeps the value's type, one inside text reads as text).
func TestYAMLPlainReferencesPlanAndApply(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	cfg := parse(t, plainRefsConfig)
	edgeCfg := cfg.Resource("edge")
	for _, path := range []string{"network", "tags"} {
		if _, isString := edgeCfg.Properties[path].(string); isString {
			t.Errorf("edge %s is the string %q, want a template", path, edgeCfg.Properties[path])
		}
	}
	p := mustPlan(t, e, cfg)
	edge := find(t, p, "edge")
	for _, dep := range []string{"net", "sub", "web[0]", "web[1]"} {
		if !slices.Contains(edge.Dependencies, dep) {
			t.Errorf("edge depends on %v, want %s among them (read in its templates)", edge.Dependencies, dep)
		}
	}
	for _, path := range []string{"tags.ip", "tags.both", "tags.loud"} {
		if got, _ := valueAt(edge.Properties, path); !value.HasUnknown(got) {
			t.Errorf("edge %s planned %#v, want it known after apply", path, got)
		}
	}

	mustApply(t, e, cfg)
	st := w.state()
	id := func(addr string) string { return st.Resources[addr].ProviderID }
	out := func(addr, name string) string { return st.Resources[addr].Outputs[name].(string) }
	if got, want := st.Resources["web[1]"].Config["securityGroups"], []any{id("sg[0]"), id("sg[1]")}; !cmp.Equal(got, want) {
		t.Errorf("web[1] securityGroups = %#v, want %#v", got, want)
	}
	want := map[string]any{
		"ip":   out("web[0]", "publicIp"),
		"both": out("web[0]", "publicIp") + "," + out("web[1]", "privateIp"),
		"loud": strings.ToUpper(out("web[1]", "publicIp")),
	}
	if diff := cmp.Diff(want, st.Resources["edge"].Config["tags"]); diff != "" {
		t.Errorf("edge's tags as applied (-want +got):\n%s", diff)
	}
	if got, want := st.Resources["web[0]"].Config["tags"], map[string]any{"name": "web-0", "net": "net-" + id("net")}; !cmp.Equal(got, want) {
		t.Errorf("web[0] tags = %#v, want %#v", got, want)
	}
	if got, want := st.Outputs["net"], "vpc "+id("net"); got != want {
		t.Errorf("output net = %#v, want %q", got, want)
	}
	if p := mustPlan(t, e, parse(t, plainRefsConfig)); p.HasChanges() {
		t.Errorf("planned again after apply: %v, want no changes", actions(p))
	}
}

// TestYAMLPlainReferencesSavedPlan: a plan file keeps a plain template
// in the reference form plan files always held ("net-${net}"), so a
// plan saved by an earlier kyku (that form, the same hashes) loads and
// applies without its configuration, and applies what it showed.
func TestYAMLPlainReferencesSavedPlan(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	// Without the template computing with an attribute: the others read
	// resources plainly.
	text := strings.Replace(plainRefsConfig, `        loud: "${upper(web[1].publicIp)}"`+"\n", "", 1)
	cfg := parse(t, text)
	if cfg.Expressions {
		t.Fatal("plain references marked the configuration as computing with resources")
	}
	data, err := plan.Encode(mustPlan(t, e, cfg))
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		t.Fatal(err)
	}
	for _, form := range []string{`"network":"${net}"`, `"net":"net-${net}"`, `"both":"${web[0].publicIp},${web[1].privateIp}"`, `"value":"vpc ${net}"`} {
		if !bytes.Contains(compact.Bytes(), []byte(form)) {
			t.Errorf("the plan file does not hold %s in the reference form", form)
		}
	}
	saved, err := plan.Decode("plan.kyku", data)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, saved)
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		t.Fatalf("apply saved plan: %v", err)
	}
	st := w.state()
	out := func(addr, name string) string {
		r := st.Resources[addr]
		if r == nil {
			t.Fatalf("%s is not in the state after the saved plan's apply", addr)
		}
		s, _ := r.Outputs[name].(string)
		return s
	}
	if got, want := st.Resources["web[0]"].Config["tags"].(map[string]any)["net"], "net-"+st.Resources["net"].ProviderID; got != want {
		t.Errorf("web[0] tags.net = %#v, want %q", got, want)
	}
	if got, want := st.Resources["edge"].Config["tags"].(map[string]any)["both"], out("web[0]", "publicIp")+","+out("web[1]", "privateIp"); got != want {
		t.Errorf("edge tags.both = %#v, want %q", got, want)
	}
	if p := mustPlan(t, e, parse(t, text)); p.HasChanges() {
		t.Errorf("planned again after the saved plan: %v, want no changes", actions(p))
	}
}
