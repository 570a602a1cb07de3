package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// unknownProp is a property known only after apply, wholly or in part.
func unknownProp(path string, old, new any) plan.PropChange {
	return plan.PropChange{Path: path, Old: value.Normalize(old), New: value.Normalize(new), Unknown: true}
}

// createPlan creates a Kyku type's resource and a Terraform provider's
// (sdktest_item, provider "sdktest"): every attribute with its planned
// value, computed ones known after apply, a secret, a map, a list and a
// nested block known in part, a certificate of several lines; it updates
// a nested block to one known in part, and changes outputs.
func createPlan() *plan.Plan {
	u := value.Unknown
	vm := change(plan.Create, "Vm", "web", 1,
		prop("image", nil, "debian-12"),
		unknownProp("network", nil, u),
		unknownProp("securityGroups", nil, []any{"sg-0a1b", u}),
		prop("size", nil, "small"),
		plan.PropChange{Path: "userData", New: "#!/bin/sh\necho " + secret + "\n", Sensitive: true})
	vm.Provider, vm.CloudName = "sim", "a1b2c3d4-web"
	item := change(plan.Create, "sdktest_item", "cert", 0,
		prop("cert_pem", nil, pem),
		unknownProp("id", nil, u),
		prop("name", nil, "cert"),
		unknownProp("revision", nil, u),
		unknownProp("rule", nil, []any{map[string]any{"cidr": "10.0.0.0/8", "port": 443}, map[string]any{"cidr": u, "port": 80}}),
		plan.PropChange{Path: "secret", New: secret, Sensitive: true},
		unknownProp("tags", nil, map[string]any{"k": "one", "pet": "pet-" + u}),
		prop("value", nil, "plain"))
	item.Provider, item.CloudName = "sdktest", "a1b2c3d4-cert"
	upd := change(plan.Update, "sdktest_item", "edge", 2,
		unknownProp("rule", []any{map[string]any{"cidr": "10.0.0.0/8", "port": 443}}, []any{map[string]any{"cidr": "10.0.0.0/8", "port": 443}, map[string]any{"cidr": u, "port": 80}}),
		unknownProp("tags.pet", "old-pet", u))
	upd.Provider, upd.ProviderID = "sdktest", "item-7"
	p := newPlan("prod", item, vm, upd)
	p.OutputChanges = []plan.OutputChange{
		{Name: "cert", Action: plan.Create, New: pem},
		{Name: "edge_ip", Action: plan.Update, Old: "203.0.113.7", New: u, Unknown: true},
		{Name: "gone", Action: plan.Destroy, Old: "old value"},
		{Name: "names", Action: plan.Update, Old: []any{"a"}, New: []any{"a", u}, Unknown: true},
		{Name: "password", Action: plan.Create, New: plan.Masked, Sensitive: true},
		{Name: "web_id", Action: plan.Create, New: u, Unknown: true},
	}
	return p
}

func TestCreatePlanGolden(t *testing.T) {
	p := createPlan()
	golden(t, "plan_creates.txt.golden", planText(t, p, TextOptions{ShowNoOp: true}))
	golden(t, "plan_creates.json.golden", string(planJSON(t, RedactPlan(p), JSONOptions{})))
	golden(t, "comment_creates.md.golden", PlanComment(p, meta(), CommentLimit))

	outputsOnly := newPlan("prod", change(plan.NoOp, "Vpc", "main-vpc", 0))
	outputsOnly.OutputChanges = []plan.OutputChange{{Name: "vpc_cidr", Action: plan.Update, Old: "10.0.0.0/16", New: "10.1.0.0/16"}}
	golden(t, "plan_outputs_only.txt.golden", planText(t, outputsOnly, TextOptions{ShowNoOp: true}))
	golden(t, "comment_outputs_only.md.golden", PlanComment(outputsOnly, meta(), CommentLimit))
}

// What a reader relies on, each in the text, the comment and plan.json.
func TestCreatePlanShows(t *testing.T) {
	p := createPlan()
	text := planText(t, p, TextOptions{})
	md := PlanComment(p, meta(), CommentLimit)
	js := string(planJSON(t, RedactPlan(p), JSONOptions{}))
	tests := []struct {
		name, got, want string
	}{
		{"text: a Kyku type's create lists its properties", text, "  + create Vm \"web\"                          (level 1)\n      image: debian-12\n      network: (known after apply)\n"},
		{"text: a provider's create lists every attribute", text, "      id: (known after apply)\n      name: cert\n      revision: (known after apply)\n"},
		{"text: a secret of a create", text, "      secret: (sensitive)\n"},
		{"text: a list known in part", text, "      securityGroups: [\n          sg-0a1b,\n          (known after apply),\n      ]\n"},
		{"text: a map known in part", text, "      tags: {\n          k: one\n          pet: (known after apply)\n      }\n"},
		{"text: a nested block known in part", text, "      rule: [\n          {\n              cidr: 10.0.0.0/8\n              port: 443\n          },\n          {\n              cidr: (known after apply)\n              port: 80\n          },\n      ]\n"},
		{"text: an update to a nested block known in part", text, "      rule: [\n          {\n              cidr: 10.0.0.0/8\n              port: 443\n          },\n        + {\n        +     cidr: (known after apply)\n        +     port: 80\n        + },\n      ]\n"},
		{"text: a certificate as a heredoc", text, "      cert_pem: <<-EOT\n          -----BEGIN CERTIFICATE-----\n          MIIBszCCAVmgAwIBAgIUFake\n"},
		{"text: outputs", text, "\nChanges to Outputs:\n  + cert: <<-EOT\n"},
		{"text: an output changing to unknown", text, "  ~ edge_ip: 203.0.113.7 → (known after apply)\n"},
		{"text: an output removed", text, "  - gone: old value\n"},
		{"text: a sensitive output", text, "  + password: (sensitive)\n"},
		{"comment: a provider's create", md, "+   id: (known after apply)\n+   name: cert\n"},
		{"comment: a map known in part", md, "+   tags: {\n+       k: one\n+       pet: (known after apply)\n+   }\n"},
		{"comment: a heredoc", md, "+   cert_pem: <<-EOT\n+       -----BEGIN CERTIFICATE-----\n"},
		{"comment: outputs", md, "<details><summary>Changes to Outputs (6 outputs)</summary>\n\n```diff\n+ cert: <<-EOT\n"},
		{"json: the change's provider", js, "\"type\": \"sdktest_item\",\n      \"provider\": \"sdktest\","},
		{"json: a secret of a create has no old value", js, "\"path\": \"secret\",\n          \"old\": null,\n          \"new\": \"(sensitive)\","},
		{"json: a map known in part", js, "\"new\": {\n            \"k\": \"one\",\n            \"pet\": \"(known after apply)\"\n          },"},
		{"json: the output changes", js, "\"outputChanges\": ["},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(tt.got, tt.want) {
				t.Errorf("want %q in:\n%s", tt.want, tt.got)
			}
		})
	}
	for what, out := range map[string]string{"text": text, "comment": md, "json": js} {
		if strings.Contains(out, secret) {
			t.Errorf("the %s shows the secret:\n%s", what, out)
		}
	}
}

// TestPlanJSONProvider: "provider" names the provider of Kyku's own types
// only when a change is of one; each change names its type's provider.
func TestPlanJSONProvider(t *testing.T) {
	only := func(changes ...plan.Change) map[string]any {
		var doc map[string]any
		if err := json.Unmarshal(planJSON(t, newPlan("", changes...), JSONOptions{}), &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	tf := change(plan.Create, "null_resource", "a", 0)
	tf.Provider = "null"
	vm := change(plan.Create, "Vm", "web", 0)
	vm.Provider = "sim"
	if doc := only(tf); doc["provider"] != nil {
		t.Errorf("a plan of a Terraform provider's resources names provider %v", doc["provider"])
	}
	doc := only(tf, vm)
	if doc["provider"] != "sim" {
		t.Errorf("provider %v, want sim", doc["provider"])
	}
	changes := doc["changes"].([]any)
	if got := changes[0].(map[string]any)["provider"]; got != "null" {
		t.Errorf("the null_resource's provider %v, want null", got)
	}
}

// TestOutputsTruncated: when the comment is too long, the changes to
// outputs go first and the notice says so.
func TestOutputsTruncated(t *testing.T) {
	p := createPlan()
	full := PlanComment(p, meta(), CommentLimit)
	cut := PlanComment(p, meta(), len(full)-50)
	if strings.Contains(cut, "Changes to Outputs") || !strings.Contains(cut, "~ update sdktest_item \"edge\"  (level 2 · id item-7)\n") {
		t.Errorf("the outputs are not what was dropped:\n%s", cut)
	}
	if !strings.Contains(cut, "Output truncated: 0 changes and the changes to outputs not shown.") {
		t.Errorf("the notice does not say the outputs are not shown:\n%s", cut)
	}
}
