package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// defaultBranch is the trusted configuration: dbPass is sensitive, size
// is not.
const defaultBranch = `variables:
  dbPass: { type: string, sensitive: true }
  size:   { type: string, default: small }
resources: {}
`

// TestDefaultBranchDecidesSensitivity: a pull request redeclares the
// default branch's sensitive dbPass as not sensitive and puts it in a tag,
// and reads a secret the workflow passes (KYKU_VAR_leak) under a variable
// the default branch does not declare. Both stay sensitive: masked in
// the property, kept among the secrets, never quoted in a message. What
// the default branch declares not sensitive (size) stays shown.
func TestDefaultBranchDecidesSensitivity(t *testing.T) {
	pr := []File{{Name: "kyku.yaml", Data: []byte(`variables:
  dbPass: { type: string }
  leak:   { type: string }
  size:   { type: string, default: small }
resources:
  web:
    type: Vm
    properties: { image: debian-12, size: "${var.size}", tags: { a: "${var.dbPass}", b: "x-${var.leak}" } }
`)}}
	env := map[string]string{"KYKU_VAR_dbPass": "hunter2-db-secret", "KYKU_VAR_leak": "ghp-token-secret", "KYKU_VAR_size": "large"}
	in := Inputs{Getenv: func(k string) string { return env[k] }, Trusted: TrustOf([]File{{Name: "kyku.yaml", Data: []byte(defaultBranch)}})}
	cfg, err := ParseEnv(pr, in)
	if err != nil {
		t.Fatal(err)
	}
	web := cfg.Resource("web")
	if !web.SensitiveProp("tags") || web.SensitiveProp("size") {
		t.Errorf("sensitive properties %v, want tags (the secrets) and not size", web.Sensitive)
	}
	for _, s := range []string{"hunter2-db-secret", "ghp-token-secret"} {
		if !slices.Contains(cfg.SecretValues(), s) {
			t.Errorf("secret %q is not among the values to mask", s)
		}
	}
	// Every value given outside the files is a log mask, sensitive or not;
	// no default is.
	if diff := cmp.Diff([]string{"hunter2-db-secret", "ghp-token-secret", "large"}, cfg.OutsideValues()); diff != "" {
		t.Errorf("outside values (-want +got):\n%s", diff)
	}

	// Without the trusted declarations (the CLI), the files decide.
	in.Trusted = nil
	cfg, err = ParseEnv(pr, in)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Resource("web").SensitiveProp("tags") {
		t.Error("without trusted declarations the files' own (not sensitive) were overridden")
	}

	// A check on the value never quotes it.
	in.Trusted = TrustOf([]File{{Name: "kyku.yaml", Data: []byte(defaultBranch)}})
	quoting := []File{{Name: "kyku.yaml", Data: []byte("variables:\n  dbPass: { type: string, allowed: [x, y] }\n  leak: { type: string, pattern: \"[0-9]+\" }\nresources: {}\n")}}
	_, err = ParseEnv(quoting, in)
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "ghp-token") ||
		!strings.Contains(err.Error(), `variable "dbPass": KYKU_VAR_dbPass: the value (sensitive) is not one of x, y`) {
		t.Errorf("err = %v; want the checks to fail without quoting the secrets", err)
	}
}

// TestSensitiveCountAndForEach: Terraform refuses sensitive values as
// count and for_each; so does Kyku, at the line and column where the
// value is used, without showing it (a forEach's keys name instances and
// cloud names, a count shows in the instances).
func TestSensitiveCountAndForEach(t *testing.T) {
	src := `variables:
  zones:  { type: list, default: [secret-zone-a, secret-zone-b], sensitive: true }
  teams:  { type: map, default: { secret-team: x }, sensitive: true }
  n:      { type: number, default: 3, sensitive: true }
  pw:     { type: string, default: secret-pw-value, sensitive: true }
resources:
  a:
    type: SshKey
    forEach: "${var.zones}"
    properties: { publicKey: k }
  b:
    type: SshKey
    forEach: "${var.teams}"
    properties: { publicKey: k }
  c:
    type: SshKey
    count: "${var.n}"
    properties: { publicKey: k }
  d:
    type: SshKey
    forEach: [plain, "${var.pw}"]
    properties: { publicKey: k }
  e:
    type: SshKey
    forEach: { plain: "${var.pw}" }
    properties: { publicKey: "${each.value}" }
`
	ds := diagnostics(t, File{Name: "kyku.yaml", Data: []byte(src)})
	var got []string
	for _, d := range ds {
		got = append(got, d.String())
	}
	want := []string{
		`kyku.yaml:9:14: resource "a": forEach cannot use variable "zones", which is sensitive (declared sensitive): its keys would name instances and cloud names in clear; use a value that is not sensitive`,
		`kyku.yaml:13:14: resource "b": forEach cannot use variable "teams", which is sensitive (declared sensitive): its keys would name instances and cloud names in clear; use a value that is not sensitive`,
		`kyku.yaml:17:12: resource "c": count cannot use variable "n", which is sensitive (declared sensitive): instances would show it; use a value that is not sensitive`,
		`kyku.yaml:21:14: resource "d": forEach cannot use variable "pw", which is sensitive (declared sensitive): its keys would name instances and cloud names in clear; use a value that is not sensitive`,
		`kyku.yaml:25:14: resource "e": forEach cannot use variable "pw", which is sensitive (declared sensitive): its keys would name instances and cloud names in clear; use a value that is not sensitive`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	for _, g := range got {
		if strings.Contains(g, "secret-") {
			t.Errorf("a diagnostic shows a sensitive value: %s", g)
		}
	}

	// Made sensitive by the default branch, or by coming from outside the
	// files, it is refused the same way, saying why.
	pr := []File{{Name: "kyku.yaml", Data: []byte("variables:\n  zones: { type: list }\nresources:\n  a:\n    type: SshKey\n    forEach: \"${var.zones}\"\n    properties: { publicKey: k }\n")}}
	in := Inputs{Getenv: func(k string) string { return map[string]string{"KYKU_VAR_zones": "[x, y]"}[k] }, Trusted: TrustOf(nil)}
	ds = diagnosticsIn(t, in, pr...)
	if len(ds) != 1 || !strings.Contains(ds[0].String(), `kyku.yaml:6:14: resource "a": forEach cannot use variable "zones", which is sensitive (its value comes from KYKU_VAR_zones, and the default branch does not declare it)`) {
		t.Errorf("diagnostics %v, want the forEach refused as coming from KYKU_VAR_zones", ds)
	}
}

// TestOutputLongForm: an output is its value, or Terraform's output block
// as a mapping ({ value, sensitive, description }). Declared sensitive,
// it is masked where outputs are listed, whatever it reads; a mapping
// with a "value" key is always the long form, so a map holding one is
// written inside another value.
func TestOutputLongForm(t *testing.T) {
	cfg, err := Parse([]File{{Name: "kyku.yaml", Data: []byte(`resources:
  web: { type: Vm, properties: { image: debian-12 } }
outputs:
  ip: "${web.publicIp}"
  secretIp: { value: "${web.publicIp}", sensitive: true, description: kept out of logs }
  shownIp: { value: "${web.publicIp}", sensitive: false }
  record: { value: { value: "${web.publicIp}", ttl: 60 } }
`)}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Output{}
	for _, o := range cfg.Outputs {
		got[o.Name] = Output{Name: o.Name, Value: asText(o.Value), Sensitive: o.Sensitive, Description: o.Description}
	}
	want := map[string]Output{
		"ip":       {Name: "ip", Value: "${web.publicIp}"},
		"secretIp": {Name: "secretIp", Value: "${web.publicIp}", Sensitive: true, Description: "kept out of logs"},
		"shownIp":  {Name: "shownIp", Value: "${web.publicIp}"},
		"record":   {Name: "record", Value: map[string]any{"value": "${web.publicIp}", "ttl": float64(60)}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]bool{"secretIp": true}, cfg.SensitiveOutputs()); diff != "" {
		t.Errorf("SensitiveOutputs (-want +got):\n%s", diff)
	}
	// The declaration is part of what a saved plan's digest covers.
	plain, err := Parse([]File{{Name: "kyku.yaml", Data: []byte(`resources:
  web: { type: Vm, properties: { image: debian-12 } }
outputs:
  ip: "${web.publicIp}"
  secretIp: "${web.publicIp}"
  shownIp: "${web.publicIp}"
  record: { value: { value: "${web.publicIp}", ttl: 60 } }
`)}})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Hash() == cfg.Hash() {
		t.Error("declaring an output sensitive does not change the configuration's hash")
	}
}

// TestSensitiveFixtureQuotesNoSecret: every value the sensitive variables
// of testdata/errors/sensitive.yaml hold contains "s3cr3t"; whatever
// errors the fixture announces, none may show one (a guard for the
// fixture's future cases, whose messages it pins).
func TestSensitiveFixtureQuotesNoSecret(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "errors", "sensitive.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ds := diagnostics(t, File{Name: "sensitive.yaml", Data: data})
	if len(ds) == 0 {
		t.Fatal("no diagnostics")
	}
	for _, d := range ds {
		if strings.Contains(d.String(), "s3cr3t") {
			t.Errorf("a diagnostic shows a sensitive value: %s", d)
		}
	}
}

// TestAutoSubnetsOfSensitiveCIDR: the auto-subnets carved from a
// sensitive cidr hold part of it, so their cidr is sensitive too (masked
// wherever a plan shows it); a Vpc whose cidr is not sensitive gives
// subnets that are not.
func TestAutoSubnetsOfSensitiveCIDR(t *testing.T) {
	cfg, err := Parse([]File{{Name: "kyku.yaml", Data: []byte(`variables:
  cidr: { type: string, sensitive: true, default: 10.42.0.0/16 }
resources:
  hidden: { type: Vpc, properties: { cidr: "${var.cidr}", distributeAcrossAzs: 1 } }
  shown: { type: Vpc, properties: { cidr: 10.1.0.0/16, distributeAcrossAzs: 1 } }
`)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := InjectAutoSubnets(cfg, []string{"zone-a"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"hidden-subnet-public-0": true, "hidden-subnet-private-0": true, "shown-subnet-public-0": false} {
		r := cfg.Resource(name)
		if r == nil {
			t.Fatalf("no auto-subnet %q", name)
		}
		if got := r.SensitiveProp("cidr"); got != want {
			t.Errorf("%s: cidr %v sensitive = %v, want %v", name, r.Properties["cidr"], got, want)
		}
	}
}
