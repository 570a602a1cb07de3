package tfconfig_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfconfig"
)

// loadDir writes files into a directory of their own and loads it.
func loadDir(t *testing.T, files map[string]string) (*tfconfig.Module, string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	return m, dir
}

// TestRootBackend: the backend block's arguments (variables and locals
// read as OpenTofu reads them early), then each -backend-config over
// them in order: a file of arguments, a KEY=VALUE pair (a string).
func TestRootBackend(t *testing.T) {
	m, dir := loadDir(t, map[string]string{
		"main.tf": `variable "env" {
  type    = string
  default = "dev"
}
locals {
  bucket = "state-${var.env}"
}
terraform {
  backend "s3" {
    bucket       = local.bucket
    key          = "net/terraform.tfstate"
    use_lockfile = true
  }
}
`,
		"prod.s3.tfbackend": "bucket = \"state-prod\"\nregion = \"eu-west-1\"\n",
	})
	for _, tt := range []struct {
		name      string
		in        tfconfig.Inputs
		overrides []string
		want      map[string]any
	}{
		{"the block", tfconfig.Inputs{}, nil,
			map[string]any{"bucket": "state-dev", "key": "net/terraform.tfstate", "use_lockfile": true}},
		{"a variable", tfconfig.Inputs{Vars: []tfconfig.VarArg{{Name: "env", Value: "qa"}}}, nil,
			map[string]any{"bucket": "state-qa", "key": "net/terraform.tfstate", "use_lockfile": true}},
		{"a file, then a pair", tfconfig.Inputs{}, []string{filepath.Join(dir, "prod.s3.tfbackend"), "key=prod/terraform.tfstate", "use_lockfile=false"},
			map[string]any{"bucket": "state-prod", "region": "eu-west-1", "key": "prod/terraform.tfstate", "use_lockfile": "false"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tfconfig.RootBackend(m, tt.in, tt.overrides)
			if err != nil {
				t.Fatal(err)
			}
			if b.Type != "s3" || b.Pos.Line != 9 {
				t.Errorf("type %q at %v", b.Type, b.Pos)
			}
			if d := cmp.Diff(tt.want, b.Args); d != "" {
				t.Errorf("args (-want +got):\n%s", d)
			}
		})
	}
}

// TestRootBackendRefused: what cannot say where the state is.
func TestRootBackendRefused(t *testing.T) {
	for _, tt := range []struct {
		name, main string
		overrides  []string
		want       string
	}{
		{"a resource's attribute", `resource "fwtest_item" "a" { name = "a" }
terraform {
  backend "local" {
    path = fwtest_item.a.id
  }
}
`, nil, `main.tf:4:12: Invalid backend configuration: The value of "path" is known only after apply`},
		{"-backend-config without a block", `resource "fwtest_item" "a" { name = "a" }`, []string{"path=x"},
			"the configuration has no backend block"},
		{"a pair without a name", `terraform {
  backend "local" {}
}
`, []string{"=x"}, "no argument name"},
		{"a file that is not HCL", `terraform {
  backend "local" {}
}
`, []string{"BAD"}, "BAD"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, dir := loadDir(t, map[string]string{"main.tf": tt.main, "BAD": "path = = 1\n"})
			overrides := tt.overrides
			for i, o := range overrides {
				if o == "BAD" {
					overrides[i] = filepath.Join(dir, o)
				}
			}
			_, err := tfconfig.RootBackend(m, tfconfig.Inputs{}, overrides)
			if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// TestStateProvider: the provider address OpenTofu writes for a resource
// new to the state: the source required_providers gives (or
// hashicorp/<prefix>; kyku/kyku for Kyku's own types), an alias, and a module's resource using the
// configuration its call passes it.
func TestStateProvider(t *testing.T) {
	m, _ := loadDir(t, map[string]string{
		"main.tf": `terraform {
  required_providers {
    fwtest = { source = "kyku/fwtest" }
  }
}
provider "fwtest" {
  alias = "west"
  dir   = "x"
}
resource "fwtest_item" "a" { name = "a" }
resource "fwtest_item" "b" {
  provider = fwtest.west
  name     = "b"
}
resource "null_resource" "n" {}
resource "kyku_vpc" "v" { cidr = "10.0.0.0/16" }
data "fwtest_item" "d" { id = "x" }
module "net" {
  source    = "./net"
  providers = { fwtest = fwtest.west }
}
`,
		"net/main.tf": `terraform {
  required_providers {
    fwtest = { source = "kyku/fwtest" }
  }
}
resource "fwtest_item" "c" { name = "c" }
`,
	})
	for _, tt := range []struct {
		calls     []string
		data      bool
		typ, name string
		want      string
	}{
		{nil, false, "fwtest_item", "a", `provider["registry.opentofu.org/kyku/fwtest"]`},
		{nil, false, "fwtest_item", "b", `provider["registry.opentofu.org/kyku/fwtest"].west`},
		{nil, false, "null_resource", "n", `provider["registry.opentofu.org/hashicorp/null"]`},
		{nil, false, "kyku_vpc", "v", `provider["registry.opentofu.org/kyku/kyku"]`}, // Kyku's own types
		{nil, true, "fwtest_item", "d", `provider["registry.opentofu.org/kyku/fwtest"]`},
		{[]string{"net"}, false, "fwtest_item", "c", `provider["registry.opentofu.org/kyku/fwtest"].west`},
		{nil, false, "fwtest_item", "gone", ""},
	} {
		if got := tfconfig.StateProvider(m, tt.calls, tt.data, tt.typ, tt.name); got != tt.want {
			t.Errorf("%v %s.%s: %s, want %s", tt.calls, tt.typ, tt.name, got, tt.want)
		}
	}
}
