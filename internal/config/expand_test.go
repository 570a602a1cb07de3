package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/value"
)

// languageYAML is the example of the language, made valid.
const languageYAML = `variables:
  size:     { type: string, default: small, allowed: [small, medium, large], description: VM size }
  replicas: { type: number, default: 1, min: 1, max: 50 }
  zones:    { type: list, default: [a, b] }
  dbPass:   { type: string, sensitive: true }
environments:
  prod:
    variables: { size: large, replicas: 3, dbPass: prod-secret }
  staging:
    variables: { dbPass: staging-secret }
resources:
  main-vpc:
    type: Vpc
    properties: { cidr: 10.0.0.0/16 }
  web:
    type: Vm
    count: "${var.replicas}"
    properties: { size: "${var.size}", image: debian-12, network: "${main-vpc}",
                  userData: "pw=${var.dbPass}",
                  tags: { env: "${environment}", index: "${count.index}", name: "web-${environment}-${count.index}" } }
  edge:
    type: SecurityGroup
    forEach: "${var.zones}"
    properties: { network: "${main-vpc}", tags: { zone: "${each.key}" } }
  web-tg:
    type: TargetGroup
    properties: { targets: "${web[*]}" }
  db:
    type: Database
    properties: { engine: postgres, tags: { pass: "${var.dbPass}" } }
outputs:
  ips: "${web[*].publicIp}"
  first: "${web[0].publicIp}"
  zone: '${edge["a"].id}'
  pass: "${var.dbPass}"
moved:
  - { from: app-server, to: "web[0]" }
import:
  - to: db
    id: 12345
`

func parseEnv(t *testing.T, yaml string, in Inputs) *Config {
	t.Helper()
	cfg, err := ParseEnv([]File{{Name: "kyku.yaml", Data: []byte(yaml)}}, in)
	if err != nil {
		t.Fatalf("ParseEnv(%+v):\n%v", in, err)
	}
	return cfg
}

func names(cfg *Config) []string {
	var out []string
	for _, r := range cfg.Resources {
		out = append(out, r.Name)
	}
	return out
}

func TestLanguageExpandsPerEnvironment(t *testing.T) {
	prod := parseEnv(t, languageYAML, Inputs{Environment: "prod"})
	want := []string{"db", `edge["a"]`, `edge["b"]`, "main-vpc", "web[0]", "web[1]", "web[2]", "web-tg"}
	if diff := cmp.Diff(want, names(prod)); diff != "" {
		t.Errorf("prod resources (-want +got):\n%s", diff)
	}
	web2 := prod.Resource("web[2]")
	wantProps := map[string]any{
		"size": "large", "image": "debian-12", "network": "${main-vpc}", "userData": "pw=prod-secret",
		"tags": map[string]any{"env": "prod", "index": "2", "name": "web-prod-2"},
	}
	if diff := cmp.Diff(wantProps, web2.Properties, textForm); diff != "" {
		t.Errorf("web[2] properties (-want +got):\n%s", diff)
	}
	if got := asText(prod.Resource("web-tg").Properties["targets"]); !cmp.Equal(got, []any{"${web[0]}", "${web[1]}", "${web[2]}"}) {
		t.Errorf("web-tg targets = %v", got)
	}
	if got := prod.Resource(`edge["b"]`).Properties["tags"]; !cmp.Equal(got, map[string]any{"zone": "b"}) {
		t.Errorf(`edge["b"] tags = %v`, got)
	}
	if diff := cmp.Diff([]string{"userData"}, web2.Sensitive); diff != "" {
		t.Errorf("web[2] sensitive (-want +got):\n%s", diff)
	}
	if !prod.Resource("db").SensitiveProp("tags") || prod.Resource("web-tg").SensitiveProp("targets") {
		t.Errorf("SensitiveProp: db tags should be, web-tg targets should not be")
	}
	outs := map[string]*Output{}
	for _, o := range prod.Outputs {
		outs[o.Name] = o
	}
	if got := asText(outs["ips"].Value); !cmp.Equal(got, []any{"${web[0].publicIp}", "${web[1].publicIp}", "${web[2].publicIp}"}) {
		t.Errorf("ips = %v", got)
	}
	if !outs["pass"].Sensitive || outs["ips"].Sensitive {
		t.Errorf("output sensitivity: pass %v ips %v", outs["pass"].Sensitive, outs["ips"].Sensitive)
	}
	if diff := cmp.Diff([]*Moved{{From: "app-server", To: "web[0]"}}, prod.Moved, cmpIgnorePos); diff != "" {
		t.Errorf("moved (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]*Import{{To: "db", ID: "12345"}}, prod.Imports, cmpIgnorePos); diff != "" {
		t.Errorf("imports (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"prod-secret"}, prod.Secrets); diff != "" {
		t.Errorf("secrets (-want +got):\n%s", diff)
	}
	if got := prod.SecretValues(); !cmp.Equal(got, []string{"pw=prod-secret", "prod-secret"}) {
		t.Errorf("SecretValues = %q", got)
	}

	staging := parseEnv(t, languageYAML, Inputs{Environment: "staging"})
	if got := len(staging.Resources); got != 6 { // one web
		t.Errorf("staging has %d resources, want 6: %v", got, names(staging))
	}
	if got := staging.Resource("web[0]").Properties["size"]; got != "small" {
		t.Errorf("staging size = %v, want the default small", got)
	}
	if prod.Hash() == staging.Hash() {
		t.Error("two environments with different values hash alike")
	}
	if diff := cmp.Diff([]string{"prod", "staging"}, prod.Environments); diff != "" {
		t.Errorf("environments (-want +got):\n%s", diff)
	}
}

var cmpIgnorePos = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Pos" }, cmp.Ignore())

func TestVariablePrecedence(t *testing.T) {
	env := map[string]string{"KYKU_VAR_replicas": "5", "KYKU_VAR_size": "medium"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name string
		in   Inputs
		web  int
		size string
	}{
		{"default", Inputs{Environment: "staging"}, 1, "small"},
		{"environment", Inputs{Environment: "prod"}, 3, "large"},
		{"KYKU_VAR_ over environment", Inputs{Environment: "prod", Getenv: getenv}, 5, "medium"},
		{"--var over KYKU_VAR_", Inputs{Environment: "prod", Getenv: getenv, Vars: map[string]string{"replicas": "2"}}, 2, "medium"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := parseEnv(t, languageYAML, tt.in)
			n := 0
			for _, r := range cfg.Resources {
				if strings.HasPrefix(r.Name, "web[") {
					n++
				}
			}
			if n != tt.web {
				t.Errorf("%d web instances, want %d", n, tt.web)
			}
			if got := cfg.Resource("web[0]").Properties["size"]; got != tt.size {
				t.Errorf("size = %v, want %s", got, tt.size)
			}
		})
	}
}

func TestVarTypesFromText(t *testing.T) {
	yaml := `variables:
  n: { type: number }
  b: { type: bool }
  l: { type: list }
  m: { type: map }
resources:
  k:
    type: SshKey
    forEach: "${var.m}"
    properties: { publicKey: "${each.value}", tags: { b: "${var.b}", n: "${var.n}", first: "${each.key}" } }
outputs:
  l: "${var.l}"
`
	cfg := parseEnv(t, yaml, Inputs{Vars: map[string]string{"n": "2.5", "b": "true", "l": `["x", 2]`, "m": "{ a: key-a, b: key-b }"}})
	if diff := cmp.Diff([]string{`k["a"]`, `k["b"]`}, names(cfg)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := cfg.Resource(`k["b"]`).Properties; !cmp.Equal(got, map[string]any{"publicKey": "key-b", "tags": map[string]any{"b": "true", "n": "2.5", "first": "b"}}) {
		t.Errorf("k[b] = %v", got)
	}
	if got := cfg.Outputs[0].Value; !cmp.Equal(got, []any{"x", 2.0}) {
		t.Errorf("output l = %v", got)
	}
}

func TestCommandLineErrors(t *testing.T) {
	yaml := "variables:\n  n: { type: number, max: 3 }\n  s: { type: string, sensitive: true, pattern: \"[a-z]+\" }\nresources: {}\n"
	tests := []struct {
		in   Inputs
		want []string
	}{
		{Inputs{Vars: map[string]string{"nn": "1", "n": "1", "s": "x"}},
			[]string{`command line: --var nn: no variable "nn" is declared (declared: n, s)`}},
		{Inputs{Vars: map[string]string{"n": "x", "s": "SECRET"}},
			[]string{`kyku.yaml:2:3: variable "n": --var n: expected a number`,
				`kyku.yaml:3:3: variable "s": --var s: the value (sensitive) does not match the pattern "[a-z]+"`}},
		{Inputs{Vars: map[string]string{"n": "4"}, Getenv: func(k string) string { return map[string]string{"KYKU_VAR_s": "ok"}[k] }},
			[]string{`kyku.yaml:2:3: variable "n": --var n: 4 is above the maximum 3`}},
		{Inputs{Environment: "prod", Vars: map[string]string{"n": "1", "s": "a"}}, nil},
	}
	for _, tt := range tests {
		_, err := ParseEnv([]File{{Name: "kyku.yaml", Data: []byte(yaml)}}, tt.in)
		var got []string
		var ds diag.Diagnostics
		if errors.As(err, &ds) {
			for _, d := range ds {
				got = append(got, d.String())
			}
		} else if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tt.in, diff)
		}
		if strings.Contains(strings.Join(got, "\n"), "SECRET") {
			t.Errorf("a sensitive value is quoted: %v", got)
		}
	}
}

func TestEachEnvironment(t *testing.T) {
	files := []File{{Name: "kyku.yaml", Data: []byte(languageYAML)}}
	cfgs, err := ParseEach(files, Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cfgs {
		got = append(got, c.Environment)
	}
	if diff := cmp.Diff([]string{"prod", "staging"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	broken := strings.Replace(languageYAML, "replicas: 3,", "replicas: 60,", 1)
	broken = strings.Replace(broken, "{ dbPass: staging-secret }", "{ size: huge }", 1)
	_, err = ParseEach([]File{{Name: "kyku.yaml", Data: []byte(broken)}}, Inputs{})
	want := `kyku.yaml:5:3: variable "dbPass" has no value in environment "staging": give it with --var dbPass=…, KYKU_VAR_dbPass, environments.<env>.variables or a default
kyku.yaml:8:41: variable "replicas" in environment "prod": 60 is above the maximum 50
kyku.yaml:10:24: variable "size" in environment "staging": "huge" is not one of small, medium, large`
	if err == nil || err.Error() != want {
		t.Errorf("ParseEach errors:\n%v\nwant:\n%s", err, want)
	}
}

func TestValidNameIsNameRE(t *testing.T) {
	for _, s := range []string{"", "a", "web-0", "-a", "_a", "a_b", "a b", "a.b", "é", "0", "a-", "web[0]", "A9"} {
		if validName(s) != nameRE().MatchString(s) {
			t.Errorf("validName(%q) = %v, nameRE says %v", s, validName(s), nameRE().MatchString(s))
		}
	}
}

// An import whose ID a variable leaves empty is for other environments;
// dependsOn on a resource with instances depends on all of them.
func TestImportPerEnvironmentAndDependsOnInstances(t *testing.T) {
	yaml := `variables:
  dbId: { type: string, default: "" }
environments:
  staging: {}
  prod:
    variables: { dbId: "4711" }
resources:
  db: { type: SshKey, properties: { publicKey: k } }
  web: { type: SshKey, count: 2, properties: { publicKey: k } }
  after: { type: SshKey, dependsOn: [web], properties: { publicKey: k } }
import:
  - { to: db, id: "${var.dbId}" }
`
	if got := parseEnv(t, yaml, Inputs{Environment: "staging"}).Imports; len(got) != 0 {
		t.Errorf("staging imports %v, want none", got)
	}
	prod := parseEnv(t, yaml, Inputs{Environment: "prod"})
	if diff := cmp.Diff([]*Import{{To: "db", ID: "4711"}}, prod.Imports, cmpIgnorePos); diff != "" {
		t.Errorf("prod imports (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"web[0]", "web[1]"}, prod.Resource("after").DependsOn); diff != "" {
		t.Errorf("dependsOn (-want +got):\n%s", diff)
	}
}

func TestPathsIntoVariablesAndInstances(t *testing.T) {
	cfg := parseEnv(t, `providers:
  tls: { source: hashicorp/tls, version: "4.2.1" }
variables:
  zones: { type: map, default: { a: { cidr: 10.0.1.0/24 }, b: { cidr: 10.0.2.0/24 } } }
  names: { type: list, default: [ one, two ] }
resources:
  cert:
    type: tls_self_signed_cert
    count: 2
    properties: { private_key_pem: x, validity_period_hours: 1, allowed_uses: [ "${var.names[1]}" ] }
  edge:
    type: SshKey
    forEach: "${var.zones}"
    properties: { publicKey: "ssh ${each.value.cidr} ${var.names[0]}" }
  req:
    type: tls_cert_request
    forEach: "${var.zones}"
    properties: { private_key_pem: x }
  user:
    type: tls_cert_request
    properties:
      all: "${var.zones.b}"
      publicKey: "${cert[1].subject[0].common_name}"
      every: "${cert[*].subject[0]}"
      keyed: '${req[a].subject[0].common_name}'
      names: "${cert[*].subject[*].common_name}"
      pick: "${var.zones[*].a.cidr}"
outputs:
  first: "${req[b].subject[0]}"
`, Inputs{})
	props := map[string]map[string]any{}
	for _, r := range cfg.Resources {
		props[r.Name] = r.Properties
	}
	for _, tc := range []struct {
		res, prop string
		want      any
	}{
		{"cert[0]", "allowed_uses", []any{"two"}},
		{`edge["a"]`, "publicKey", "ssh 10.0.1.0/24 one"},
		{"user", "all", map[string]any{"cidr": "10.0.2.0/24"}},
		{"user", "publicKey", "${cert[1].subject[0].common_name}"},
		{"user", "every", []any{"${cert[0].subject[0]}", "${cert[1].subject[0]}"}},
		{"user", "keyed", `${req["a"].subject[0].common_name}`},
		{"user", "names", []any{"${cert[0].subject[*].common_name}", "${cert[1].subject[*].common_name}"}},
		{"user", "pick", []any{"10.0.1.0/24"}}, // a map is read as a list of itself
	} {
		if got := asText(props[tc.res][tc.prop]); !value.Equal(got, tc.want) {
			t.Errorf("%s.%s = %#v, want %#v", tc.res, tc.prop, got, tc.want)
		}
	}
	if len(cfg.Outputs) != 1 || asText(cfg.Outputs[0].Value) != `${req["b"].subject[0]}` {
		t.Errorf("output first = %#v, want the instance written canonically with its path kept", cfg.Outputs)
	}
}
