package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformCheckAtApply: a check block's assertion on what apply
// makes (unknown at plan) is checked once it is made, a failure a warning
// after the apply's summary, as OpenTofu warns; it was never checked.
func TestTerraformCheckAtApply(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "a" {
  input = "x"
}
check "made" {
  assert {
    condition     = terraform_data.a.output == "y"
    error_message = "a's output is not y."
  }
}
`})
	code, out, errOut := k.run("", "apply", "--auto-approve", "-c", tf)
	if code != 0 || !strings.Contains(out, "Warning: "+filepath.Join(tf, "main.tf")+":6:21: Check block assertion failed: a's output is not y.") {
		t.Errorf("apply: exit %d, want 0 and the check's warning\n%s%s", code, out, errOut)
	}
}
