package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformObjectReadWholeHasItsNullAttributes: an object read whole
// (passed on by a module output, for_each over a resource, a for
// expression) has every attribute of its schema, null where state left
// one out, as OpenTofu's does: reading a null one reads null. It failed,
// "This object does not have an attribute named …".
func TestTerraformObjectReadWholeHasItsNullAttributes(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	args := []string{"-c", tf}
	writeFiles(t, tf, map[string]string{
		"main.tf": `module "m" {
  source = "./mod"
}
resource "terraform_data" "each" {
  for_each = module.m.all
  input    = each.value.triggers_replace == null ? "no triggers" : "triggers"
}
output "via_module" {
  value = module.m.one.input == null ? "null input" : "input"
}
output "for_expr" {
  value = [for k, d in module.m.all : d.triggers_replace]
}
output "whole" {
  value = module.m.one
}
`,
		"mod/main.tf": `resource "terraform_data" "one" {}
resource "terraform_data" "many" {
  for_each = toset(["a", "b"])
  input    = each.key
}
output "one" {
  value = terraform_data.one
}
output "all" {
  value = terraform_data.many
}
`,
	})
	code, out, errOut := k.run("", append([]string{"apply", "--auto-approve"}, args...)...)
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{`via_module = null input`, `for_expr = [null,null]`, `"triggers_replace":null`, `"input":null`} {
		if !strings.Contains(out, want) {
			t.Errorf("apply's outputs lack %s\n%s", want, out)
		}
	}
	if code, out, errOut := k.run("", append([]string{"plan", "--detailed-exitcode"}, args...)...); code != 0 {
		t.Errorf("plan after apply: exit %d, want no changes\n%s%s", code, out, errOut)
	}
}
