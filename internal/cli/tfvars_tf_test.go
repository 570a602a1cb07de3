package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformUndeclaredVariablesFileValuesWarn: a value terraform.tfvars
// gives a variable the root does not declare (often a file shared by
// roots, or a typo) is a warning in the plan, as OpenTofu's, in its text
// and plan --json; the plan goes on. On the command line it is an error.
func TestTerraformUndeclaredVariablesFileValuesWarn(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	args := []string{"-c", tf, "--state-dir", filepath.Join(k.dir, ".kyku")}
	writeFiles(t, tf, map[string]string{
		"main.tf": `variable "region" {}
resource "terraform_data" "a" {
  input = var.region
}
`,
		"terraform.tfvars": "region = \"eu\"\nregoin = \"us\"\n",
	})
	want := `terraform.tfvars:2:1: Value for undeclared variable: The root module does not declare a variable named "regoin" but a value was found in file "terraform.tfvars".`
	code, out, errOut := k.run("", append([]string{"plan"}, args...)...)
	if code != 0 || !strings.Contains(out, "Warning: ") || !strings.Contains(out, want) || !strings.Contains(out, "1 to create") {
		t.Errorf("plan: exit %d, want 0, the plan and %q\n%s%s", code, want, out, errOut)
	}
	code, out, errOut = k.run("", append([]string{"plan", "--json"}, args...)...)
	var p struct{ Warnings []string }
	if err := json.Unmarshal([]byte(out), &p); code != 0 || err != nil || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], `named "regoin"`) {
		t.Errorf("plan --json: exit %d, warnings %q (%v)\n%s", code, p.Warnings, err, errOut)
	}
	code, _, errOut = k.run("", append([]string{"plan", "--var", "regoin=us"}, args...)...)
	if code != 1 || !strings.Contains(errOut, `Value for undeclared variable: A variable named "regoin" was assigned on the command line`) {
		t.Errorf("plan --var regoin=us: exit %d, want 1 and the error\n%s", code, errOut)
	}
}
