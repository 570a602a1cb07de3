package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformValidateForEveryValue: kyku validate of a Terraform
// configuration, given no --var or --var-file, checks it for every value
// its variables may take, as tofu validate does: a required variable
// without a value, a terraform.tfvars whose value a validation refuses,
// count and an import's for_each from variables are all valid (a CI step
// validating a module without its values failed, "No value for required
// variable"). Given values, it checks with them.
func TestTerraformValidateForEveryValue(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{
		"main.tf": `variable "replicas" {
  type = number
  validation {
    condition     = var.replicas < 10
    error_message = "At most 9 replicas."
  }
}
variable "existing" {
  type    = set(string)
  default = []
}
resource "terraform_data" "r" {
  count = var.replicas
  input = count.index
}
resource "terraform_data" "imported" {
  for_each = var.existing
}
import {
  for_each = var.existing
  to       = terraform_data.imported[each.key]
  id       = each.key
}
output "first" {
  value = var.replicas > 0 ? terraform_data.r[0].id : null
}
`,
		"terraform.tfvars": "replicas = 40\n",
	})
	code, out, errOut := k.run("", "validate", "-c", tf)
	if code != 0 || !strings.Contains(out, "The configuration is valid") {
		t.Errorf("validate without values: exit %d, want 0\n%s%s", code, out, errOut)
	}
	code, out, errOut = k.run("", "validate", "-c", tf, "--var", "replicas=12")
	if code != 1 || !strings.Contains(errOut, "At most 9 replicas.") {
		t.Errorf("validate with --var replicas=12: exit %d, want 1 and the validation's message\n%s%s", code, out, errOut)
	}
	code, out, errOut = k.run("", "plan", "-c", tf)
	if code != 1 || !strings.Contains(errOut, "At most 9 replicas.") {
		t.Errorf("plan with terraform.tfvars: exit %d, want 1 and the validation's message\n%s%s", code, out, errOut)
	}
}
