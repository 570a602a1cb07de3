package policy_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/policy"
)

func set(files ...string) *policy.Set {
	s := &policy.Set{}
	for i := 0; i+1 < len(files); i += 2 {
		s.Modules = append(s.Modules, policy.Module{Name: files[i], Data: []byte(files[i+1])})
	}
	return s
}

func eval(t *testing.T, s *policy.Set, in policy.Input) (*policy.Result, error) {
	t.Helper()
	return s.Evaluate(t.Context(), in, 5*time.Second)
}

// diags returns the positions and messages of a policy error.
func diags(t *testing.T, err error) diag.Diagnostics {
	t.Helper()
	var ds diag.Diagnostics
	if !errors.As(err, &ds) {
		t.Fatalf("error %v (%T) has no diagnostics", err, err)
	}
	return ds
}

func TestDenyAndWarnAreSetsOfMessages(t *testing.T) {
	s := set(".kyku/policies/a.rego", `package kyku
deny contains "b second" if input.environment == "prod"
deny contains "a first" if input.environment == "prod"
warn contains msg if {
	some name, r in input.resources
	msg := sprintf("%s is a %s", [name, r.type])
}
`)
	res, err := eval(t, s, policy.Input{Environment: "prod", Resources: map[string]policy.Resource{"web": {Type: "Vm"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := &policy.Result{Deny: []string{"a first", "b second"}, Warn: []string{"web is a Vm"}, Files: []string{".kyku/policies/a.rego"}}
	if d := cmp.Diff(want, res); d != "" {
		t.Errorf("result (-want +got):\n%s", d)
	}
	if !res.Denied() {
		t.Error("Denied() is false")
	}
	res, err = eval(t, s, policy.Input{Environment: "dev"})
	if err != nil || res.Denied() || len(res.Warn) != 0 {
		t.Errorf("dev: %+v, %v; want no message", res, err)
	}
}

// TestBrokenPoliciesFailWithTheirPosition: nothing that cannot be
// evaluated passes as "no denial".
func TestBrokenPoliciesFailWithTheirPosition(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		want  string // the first diagnostic, file:line:col: message (prefix)
	}{
		{"syntax error", []string{"p/a.rego", "package kyku\n\ndeny contains msg if {\n\tmsg := \n}\n"}, "p/a.rego:5:1: unexpected } token"},
		{"undefined function", []string{"p/a.rego", "package kyku\ndeny contains msg if {\n  msg := nosuch(1)\n}\n"}, "p/a.rego:3:10: undefined function nosuch"},
		{"rego v0 syntax", []string{"p/a.rego", "package kyku\ndeny[msg] { msg := \"x\" }\n"}, "p/a.rego:2:"},
		{"no package kyku", []string{"p/a.rego", "package other\ndeny contains \"x\"\n"}, "p/a.rego:1:1: no policy file declares `package kyku`"},
		{"deny not a set", []string{"p/a.rego", "package kyku\n\ndeny := \"nope\"\n"}, "p/a.rego:3:1: kyku.deny must be a set of messages"},
		{"run-time error", []string{"p/a.rego", "package kyku\n\ndeny contains msg if {\n\tn := to_number(\"not a number\")\n\tmsg := sprintf(\"%d\", [n])\n}\n"}, "p/a.rego:4:7: evaluating kyku.deny: to_number"},
		{"conflicting values", []string{"p/a.rego", "package kyku\nlevel := 1 if input.environment == \"\"\nlevel := 2\ndeny contains \"x\" if level == 3\n"}, "p/a.rego:"},
		{"http.send refused", []string{"p/a.rego", "package kyku\ndeny contains msg if {\n  r := http.send({\"method\": \"get\", \"url\": \"http://127.0.0.1:1/\"})\n  msg := r.body\n}\n"}, "p/a.rego:3:8: unsafe built-in function calls in expression: http.send"},
		{"opa.runtime refused", []string{"p/a.rego", "package kyku\ndeny contains msg if {\n  msg := opa.runtime().env.GITHUB_TOKEN\n}\n"}, "p/a.rego:3:10: unsafe built-in function calls in expression: opa.runtime"},
		{"second file broken", []string{"p/a.rego", "package kyku\ndeny contains \"x\" if false\n", "p/b.rego", "package kyku\nwarn contains \n"}, "p/b.rego:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := eval(t, set(tc.files...), policy.Input{})
			if err == nil {
				t.Fatal("evaluated without an error")
			}
			var pe *policy.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not a *policy.Error", err, err)
			}
			ds := diags(t, err)
			if got := ds[0].String(); !strings.HasPrefix(got, tc.want) {
				t.Errorf("first diagnostic %q, want it to start with %q (all: %v)", got, tc.want, ds)
			}
		})
	}
}

// TestSlowPolicyTimesOutWithItsPosition: a rule that would run for minutes
// is stopped at the bound and reported where it was evaluating.
func TestSlowPolicyTimesOutWithItsPosition(t *testing.T) {
	s := set("p/slow.rego", `package kyku

deny contains msg if {
	some i in numbers.range(1, 100000000)
	some j in numbers.range(1, 100000000)
	i * j == -1
	msg := "never"
}
`)
	start := time.Now()
	_, err := s.Evaluate(t.Context(), policy.Input{}, 200*time.Millisecond)
	elapsed := time.Since(start)
	if !errors.Is(err, policy.ErrTimeout) {
		t.Fatalf("error %v, want a timeout", err)
	}
	ds := diags(t, err)
	if ds[0].Pos.File != "p/slow.rego" || ds[0].Pos.Line < 3 || ds[0].Pos.Line > 6 || !strings.Contains(ds[0].Message, "took longer than 200ms") {
		t.Errorf("diagnostic %v, want one in p/slow.rego lines 3-6 saying it took too long", ds)
	}
	// The bound is the timeout plus at most a second to find the position.
	if elapsed > 30*time.Second {
		t.Errorf("took %s", elapsed)
	}
}

func TestEmptySetAllowsEverything(t *testing.T) {
	var s *policy.Set
	res, err := s.Evaluate(t.Context(), policy.Input{}, 0)
	if err != nil || res.Denied() {
		t.Errorf("nil set: %+v %v", res, err)
	}
}

func TestManyMessagesAreCounted(t *testing.T) {
	s := set("p/a.rego", "package kyku\ndeny contains sprintf(\"n%03d\", [i]) if some i in numbers.range(1, 150)\n")
	res, err := eval(t, s, policy.Input{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Deny) != policy.MaxMessages || res.MoreDeny != 50 || res.Deny[0] != "n001" {
		t.Errorf("%d listed (first %q), %d more; want %d and 50", len(res.Deny), res.Deny[0], res.MoreDeny, policy.MaxMessages)
	}
}

func TestFromTreeReadsOnlyPolicyFiles(t *testing.T) {
	s := policy.FromTree(map[string][]byte{
		".kyku/policies/b.rego":           []byte("b"),
		".kyku/policies/sub/a.rego":       []byte("a"),
		".kyku/policies/b_test.rego":      []byte("test"),
		".kyku/policies/README.md":        []byte("doc"),
		"elsewhere/.kyku/policies/x.rego": []byte("x"),
		".kyku/config.yaml":               []byte("settings"),
	}, "main")
	if d := cmp.Diff([]string{".kyku/policies/b.rego", ".kyku/policies/sub/a.rego"}, s.Files()); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
}

// TestInput: changes are plan.json's, references to kept resources are
// resolved, others left as written, sensitive values masked.
func TestInput(t *testing.T) {
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(`
resources:
  net:
    type: Vpc
    properties: { cidr: 10.0.0.0/16 }
  web:
    type: Vm
    properties: { image: debian-12, network: "${net}", userData: hunter2, tags: { peer: "${api.privateIp}" } }
  api:
    type: Vm
    properties: { image: debian-12, network: "${net}" }
`)}})
	if err != nil {
		t.Fatal(err)
	}
	p := &plan.Plan{FormatVersion: plan.FormatVersion, Environment: "prod", Config: cfg, Changes: []plan.Change{
		{Action: plan.NoOp, ResourceID: "net", Type: "Vpc", ProviderID: "vpc-1"},
		{Action: plan.Create, ResourceID: "api", Type: "Vm"},
		{Action: plan.Update, ResourceID: "web", Type: "Vm", ProviderID: "i-1", Properties: []plan.PropChange{
			{Path: "userData", Old: "hunter1", New: "hunter2", Sensitive: true},
			{Path: "size", Old: "small", New: "large"},
		}},
	}}
	in, err := policy.NewInput(p)
	if err != nil {
		t.Fatal(err)
	}
	web := in.Resources["web"]
	if web.Type != "Vm" || web.Properties["network"] != "vpc-1" || web.Properties["userData"] != plan.Masked {
		t.Errorf("web = %+v", web)
	}
	if tags := web.Properties["tags"].(map[string]any); tags["peer"] != "${api.privateIp}" {
		t.Errorf("a reference to a resource being created = %v, want it as written", tags["peer"])
	}
	if len(in.Changes) != 3 {
		t.Fatalf("changes %v", in.Changes)
	}
	props := in.Changes[2].(map[string]any)["properties"].([]any)
	if v := props[0].(map[string]any)["new"]; v != plan.Masked {
		t.Errorf("sensitive change new = %v", v)
	}
	// The policy sees the same document.
	s := set("p/a.rego", `package kyku
deny contains msg if {
	some c in input.changes
	c.action == "update"
	some pc in c.properties
	pc.path == "size"
	msg := sprintf("%s: %s -> %s on %s", [c.resourceId, pc.old, pc.new, input.resources[c.resourceId].properties.network])
}
`)
	res, err := eval(t, s, in)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"web: small -> large on vpc-1"}, res.Deny); d != "" {
		t.Errorf("deny (-want +got):\n%s", d)
	}
}

// A property holding a sensitive variable's value is masked in the input
// like a schema-sensitive one, however deep inside it the value is.
func TestInputMasksSensitiveVariables(t *testing.T) {
	cfg, err := config.ParseEnv([]config.File{{Name: "kyku.yaml", Data: []byte(`
variables:
  token: { type: string, sensitive: true }
resources:
  web:
    type: Vm
    count: 2
    properties: { image: debian-12, tags: { auth: "Bearer ${var.token}", index: "${count.index}" } }
`)}}, config.Inputs{Vars: map[string]string{"token": "tok-0123456789"}})
	if err != nil {
		t.Fatal(err)
	}
	p := &plan.Plan{FormatVersion: plan.FormatVersion, Config: cfg, Changes: []plan.Change{
		{Action: plan.Create, ResourceID: "web[0]", Type: "Vm", Properties: []plan.PropChange{
			{Path: "tags", New: map[string]any{"auth": "Bearer tok-0123456789"}, Sensitive: true}}},
	}}
	in, err := policy.NewInput(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := in.Resources["web[1]"].Properties["tags"]; got != plan.Masked {
		t.Errorf("web[1] tags = %v, want masked", got)
	}
	if in.Resources["web[1]"].Properties["image"] != "debian-12" {
		t.Errorf("web[1] = %+v", in.Resources["web[1]"])
	}
	doc, _ := json.Marshal(in)
	if strings.Contains(string(doc), "tok-0123456789") {
		t.Errorf("the policy input holds the sensitive value: %s", doc)
	}
}

// TestInputMasksProviderSensitiveAttributes: a Terraform provider's
// resource is in the input like Kyku's own, and what its schema marks
// sensitive is "(sensitive)" there as in plan.json.
func TestInputMasksProviderSensitiveAttributes(t *testing.T) {
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte("providers:\n  fw: { source: kyku/fw }\nresources:\n  a: { type: fw_item, properties: { name: a, secret: hunter2-x } }\n")}})
	if err != nil {
		t.Fatal(err)
	}
	p := &plan.Plan{Config: cfg, Changes: []plan.Change{{Action: plan.Create, ResourceID: "a", Type: "fw_item",
		Properties: []plan.PropChange{{Path: "name", New: "a"}, {Path: "secret", New: "hunter2-x", Sensitive: true}},
		Planned:    &plan.Planned{State: []byte("hunter2-x"), Sensitive: []string{"secret"}}}}}
	in, err := policy.NewInput(p)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(in)
	if strings.Contains(string(b), "hunter2") {
		t.Errorf("the policy input holds a sensitive value:\n%s", b)
	}
	if got := in.Resources["a"]; got.Type != "fw_item" || got.Properties["name"] != "a" || got.Properties["secret"] != plan.Masked {
		t.Errorf("resource a in the input: %+v", got)
	}
}
