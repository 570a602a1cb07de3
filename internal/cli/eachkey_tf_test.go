package cli_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestTerraformEachKeyIsNotSensitive: for_each over resources holding a
// sensitive attribute makes each.value's sensitive parts sensitive, not
// each.key (OpenTofu refuses a sensitive for_each: keys never are). An
// output of what only the keys built was refused "Output refers to
// sensitive values", as if it read the secret; an argument built of the
// key was masked in the plan. The instances still wait for what their
// for_each reads, and what reads each.value's secret stays sensitive.
func TestTerraformEachKeyIsNotSensitive(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the test providers")
	}
	k := newKyku(t, "")
	tf := fwtestRoot(t, k, `resource "fwtest_item" "base" {
  for_each = toset(["a", "b"])
  name     = "base-${each.key}"
  secret   = "s3cr3t-${each.key}"
}
resource "fwtest_item" "child" {
  for_each = fwtest_item.base
  name     = "child-${each.key}"
  value    = "of-${each.key}"
}
output "children" {
  value = { for k, c in fwtest_item.child : k => c.value }
}
`)
	k.env["KYKU_PLUGIN_MIRROR"] = tfplugintest.Mirror(t, t.TempDir(), tfplugintest.Framework)
	k.ok("init", "-c", tf)
	out := k.ok("plan", "-c", tf)
	if !strings.Contains(out, `value: of-a`) || strings.Contains(out, "s3cr3t") {
		t.Errorf("plan masks an argument built of each.key, or shows the secret:\n%s", out)
	}
	// planned after the objects its for_each reads, as OpenTofu orders
	// them, though no argument reads one
	if !strings.Contains(out, `fwtest_item.child["a"] (level 1)`) {
		t.Errorf("a child does not wait for the objects its for_each reads:\n%s", out)
	}
	k.ok("apply", "--auto-approve", "-c", tf)
	if got := k.ok("output", "-c", tf, "--json", "children"); strings.TrimSpace(got) != `{"a":"of-a","b":"of-b"}` {
		t.Errorf("output children = %s", got)
	}

	// each.value's secret read into an output is still refused.
	writeFiles(t, tf, map[string]string{"secret.tf": `resource "fwtest_item" "leak" {
  for_each = fwtest_item.base
  name     = "leak-${each.key}"
  value    = each.value.secret
}
output "leaked" {
  value = { for k, c in fwtest_item.leak : k => c.value }
}
`})
	code, stdout, stderr := k.run("", "plan", "-c", tf)
	if code == 0 || !strings.Contains(stderr, `Output refers to sensitive values: output "leaked"`) {
		t.Errorf("an output of each.value's secret: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestTerraformTriggerEachValueRefused: replace_triggered_by may pick its
// instance with each.key and count.index only, as OpenTofu checks when
// it reads the file (Kyku took each.value).
func TestTerraformTriggerEachValueRefused(t *testing.T) {
	k := newKyku(t, "")
	tf := k.dir + "/tf"
	writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "src" {
  for_each = { a = "x" }
  input    = each.value
}
resource "terraform_data" "by_value" {
  for_each = { a = "a" }
  lifecycle {
    replace_triggered_by = [terraform_data.src[each.value]]
  }
}
resource "terraform_data" "by_count" {
  count = 1
  lifecycle {
    replace_triggered_by = [terraform_data.src[count.whatever]]
  }
}
`})
	for _, cmd := range []string{"validate", "plan"} {
		code, out, errOut := k.run("", cmd, "-c", tf)
		for _, want := range []string{
			"main.tf:8:29: Invalid each reference in replace_triggered_by expression: Only each.key may be used in replace_triggered_by.",
			"main.tf:14:29: Invalid count reference in replace_triggered_by expression: Only count.index may be used in replace_triggered_by.",
		} {
			if code == 0 || !strings.Contains(errOut, want) {
				t.Errorf("%s: exit %d, want %q\n%s%s", cmd, code, want, out, errOut)
			}
		}
	}
}

// TestTerraformKeysOfSecretsAreNot: keys() and length() of a whole module
// call or resource carry the marks of the object itself, not of the
// values in it, as OpenTofu's functions do: the instance keys of a
// module whose outputs include a secret are not secret. Kyku refused
// such an output "Output refers to sensitive values". An output of the
// secret itself still is refused.
func TestTerraformKeysOfSecretsAreNot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the test providers")
	}
	k := newKyku(t, "")
	tf := fwtestRoot(t, k, `module "db" {
  source   = "./db"
  for_each = toset(["orders", "users"])
  name     = each.key
}
resource "fwtest_item" "direct" {
  for_each = toset(["a"])
  name     = "direct-${each.key}"
  secret   = "s3cr3t"
}
output "names" {
  value = sort(keys(module.db))
}
output "count" {
  value = length(module.db) + length(fwtest_item.direct)
}
output "direct_keys" {
  value = keys(fwtest_item.direct)
}
`)
	writeFiles(t, tf, map[string]string{"db/main.tf": `terraform {
  required_providers {
    fwtest = { source = "kyku/fwtest" }
  }
}
variable "name" {
  type = string
}
resource "fwtest_item" "x" {
  name   = "db-${var.name}"
  secret = "pw-${var.name}"
}
output "secret" {
  value     = fwtest_item.x.secret
  sensitive = true
}
`})
	k.env["KYKU_PLUGIN_MIRROR"] = tfplugintest.Mirror(t, t.TempDir(), tfplugintest.Framework)
	k.ok("init", "-c", tf)
	out := k.ok("plan", "-c", tf)
	for _, want := range []string{"names: [", "orders,", "count: 3", "direct_keys: ["} {
		if !strings.Contains(out, want) {
			t.Errorf("plan does not show %q:\n%s", want, out)
		}
	}
	writeFiles(t, tf, map[string]string{"leak.tf": `output "leak" {
  value = module.db["orders"].secret
}
`})
	code, stdout, stderr := k.run("", "plan", "-c", tf)
	if code == 0 || !strings.Contains(stderr, `Output refers to sensitive values`) {
		t.Errorf("an output of the module's secret: exit %d\n%s%s", code, stdout, stderr)
	}
}
