package tfconfig_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfconfig"
)

// earlyFiles: module sources read from a local built of a variable, and,
// one module down, from the caller's argument (a local of the caller's
// own), as OpenTofu evaluates them before anything is installed.
var earlyFiles = map[string]string{
	"main.tf": `
variable "flavor" {
  type    = string
  default = "blue"
}
locals {
  dir = "./modules/${var.flavor}"
}
module "svc" {
  source = local.dir
  leaf   = lower("LEAF")
}
`,
	"modules/blue/main.tf": `
variable "leaf" {
  type = string
}
module "inner" {
  source = "../../${var.leaf}"
}
resource "terraform_data" "blue" {}
`,
	"modules/green/main.tf": `
variable "leaf" {
  type = string
}
resource "terraform_data" "green" {}
`,
	"leaf/main.tf": `
resource "terraform_data" "leaf" {}
`,
}

func TestEarlySources(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, earlyFiles)
	for _, tc := range []struct {
		name string
		in   tfconfig.Inputs
		want []string
	}{
		{"default", tfconfig.Inputs{}, []string{"module.svc.module.inner.terraform_data.leaf", "module.svc.terraform_data.blue"}},
		{"--var", tfconfig.Inputs{Vars: []tfconfig.VarArg{{Name: "flavor", Value: "green"}}}, []string{"module.svc.terraform_data.green"}},
		{"TF_VAR_name", tfconfig.Inputs{Getenv: func(n string) string { return map[string]string{"TF_VAR_flavor": "green"}[n] }}, []string{"module.svc.terraform_data.green"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := tfconfig.Load(dir, nil, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := tfconfig.Expand(m, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range cfg.Resources {
				got = append(got, r.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("resources %q, want %q", got, tc.want)
			}
		})
	}
}

// What a source or version may not read before anything is installed is
// refused at its place, in OpenTofu's words; every error at once.
func TestEarlySourcesRefused(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"main.tf": `
variable "req" {
  type = string
}
variable "secret" {
  type      = string
  default   = "./leaf"
  sensitive = true
}
resource "terraform_data" "r" {}
locals {
  bad  = terraform_data.r.id
  a    = local.b
  b    = local.a
  when = timestamp()
}
module "a" {
  source = "./${var.req}"
}
module "b" {
  source = local.bad
}
module "c" {
  source = module.a.v
}
module "d" {
  for_each = toset(["leaf"])
  source   = "./${each.key}"
}
module "e" {
  source = var.secret
}
module "f" {
  source = local.a
}
module "g" {
  source = "./${local.when}"
}
module "h" {
  source = "./leaf"
  count  = 1
  n      = count.index
}
module "i" {
  source = "./leaf"
  n      = data.x.y.z
}
`,
		"leaf/main.tf": `
variable "n" {
  default = 0
}
module "deeper" {
  source = "../${var.n}"
}
`,
	})
	_, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
	if err == nil {
		t.Fatal("loaded")
	}
	for _, want := range []string{
		`main.tf:2:1: No value for required variable: The root module input variable "req" is not set`,
		`main.tf:18:12: Unable to compute static value: module.a.source depends on var.req which is not available`,
		`main.tf:12:10: Dynamic value in static context: Unable to use terraform_data.r in static context, which is required by local.bad`,
		`main.tf:21:12: Unable to compute static value: module.b.source depends on local.bad which is not available`,
		`main.tf:24:12: Module output not supported in static context: Unable to use module.a.v in static context, which is required by module.c.source`,
		`main.tf:28:19: Dynamic value in static context: Unable to use each.key in static context, which is required by module.d.source`,
		`main.tf:31:12: Sensitive value not allowed: Sensitive values, or values derived from sensitive values, cannot be used as module.e.source.`,
		`Circular reference: local.a is self referential`,
		`main.tf:37:12: Unknown value: The value of module.g.source must be known before anything is installed`,
		`leaf/main.tf:6:12: Unable to compute static value: module.h:module.deeper.source depends on module.h:var.n which is not available`,
		`main.tf:42:12: Dynamic value in static context: Unable to use count.index in static context, which is required by module.h:var.n`,
		`main.tf:46:12: Dynamic value in static context: Unable to use data.x.y in static context, which is required by module.i:var.n`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("no %q in:\n%v", want, err)
		}
	}
}

// TestConstVariables: OpenTofu 1.12's const. A variable declared const =
// true must have a value known before anything is installed (a root's
// given or defaulted, a module's argument reading what a source may);
// one declared const = false may not be read by a source.
func TestConstVariables(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"main.tf": `
variable "region" {
  type  = string
  const = true
}
variable "later" {
  type    = string
  default = "./m"
  const   = false
}
resource "terraform_data" "r" {}
module "m" {
  source = "./m"
  flavor = terraform_data.r.id
  ok     = var.region
}
module "n" {
  source = var.later
  flavor = "x"
  ok     = "y"
}
`,
		"m/main.tf": `
variable "flavor" {
  type  = string
  const = true
}
variable "ok" {
  type  = string
  const = true
}
`,
	})
	_, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
	for _, want := range []string{
		`main.tf:2:1: No value for required variable: The root module input variable "region" is not set`,
		`main.tf:14:12: Dynamic value in static context: Unable to use terraform_data.r in static context, which is required by module.m:var.flavor`,
		`main.tf:15:12: Unable to compute static value: module.m:var.ok depends on var.region which is not available`,
		`main.tf:18:12: Unable to use variable in static context: The variable "later" cannot be used in a static context, because it is declared as "const = false".`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("no %q in:\n%v", want, err)
		}
	}
	// given: the module's argument that reads a resource is still refused
	_, err = tfconfig.Load(dir, nil, tfconfig.Inputs{Vars: []tfconfig.VarArg{{Name: "region", Value: "eu"}}})
	if err == nil || strings.Contains(err.Error(), "region") || !strings.Contains(err.Error(), "module.m:var.flavor") {
		t.Errorf("with region given: %v", err)
	}
}
