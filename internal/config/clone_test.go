package config

import (
	"context"
	"reflect"
	"testing"

	"github.com/kyku/action/internal/diag"
)

// TestCloneCopiesEveryField: a field added to Config and forgotten in
// Clone would be dropped wherever a config is copied (the bot's tenancy
// confinement, the public API) — a moved block or the encryption lost
// without a word.
func TestCloneCopiesEveryField(t *testing.T) {
	cfg, err := ParseEnv([]File{{Name: "kyku.yaml", Data: []byte(`provider: { name: sim, dir: cloud }
backend: { type: local, path: state }
encryption: { key: passphrase }
variables:
  n: { type: number, default: 1 }
  pw: { type: string, default: hunter22, sensitive: true }
environments:
  prod: { variables: { n: 2 } }
resources:
  web:
    type: SshKey
    count: "${var.n}"
    properties: { publicKey: "ssh-ed25519 AAAA ${var.pw}" }
outputs:
  first: "${web[0].id}"
moved:
  - { from: old, to: "web[0]" }
import:
  - { to: "web[1]", id: "key-1" }
providers:
  null: { source: hashicorp/null }
`)}}, Inputs{Environment: "prod"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Terraform = true   // set by package tfconfig
	cfg.Expressions = true // set when a template computes with resources
	cfg.Forget = []string{"old"}
	cfg.RemovedDestroy = []string{"gone"}
	cfg.CountReads = []*CountRead{{By: "a.b", Arg: "count", Reads: []string{"c.d"}}}
	cfg.CheckAssertions = []*Condition{{Pos: diag.Pos{File: "main.tf", Line: 3}}}
	cfg.Warnings = []string{"terraform.tfvars:1:1: Value for undeclared variable"}
	cfg.ModuleOutputConditions = []*Condition{{Pos: diag.Pos{File: "m/main.tf", Line: 7}}}
	cfg.Pending = func(context.Context, Known) (*Config, error) { return nil, nil }
	cfg.Undecided = []string{"aws_subnet.x"}
	got := cfg.Clone()
	want, have := reflect.ValueOf(cfg).Elem(), reflect.ValueOf(got).Elem()
	for i := range want.NumField() {
		f := want.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		if want.Field(i).IsZero() {
			t.Errorf("the test config leaves %s empty: give it a value so Clone is checked for it", f.Name)
			continue
		}
		if want.Field(i).Kind() == reflect.Func {
			if want.Field(i).Pointer() != have.Field(i).Pointer() {
				t.Errorf("Clone lost or changed %s", f.Name)
			}
			continue
		}
		if !reflect.DeepEqual(want.Field(i).Interface(), have.Field(i).Interface()) {
			t.Errorf("Clone lost or changed %s", f.Name)
		}
	}
	got.Resources[0] = nil
	got.Provider.Settings["dir"] = "elsewhere"
	if cfg.Resources[0] == nil || cfg.Provider.Settings["dir"] != "cloud" {
		t.Error("changing the clone changed the original")
	}
}
