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

// TestTerraformCheckDataSourceFailureWarns: a check block's own data
// source that fails to read (a health check's endpoint down, a state not
// there yet) warns and leaves the plan and the apply to go on, as
// OpenTofu does (it failed both); it is read again during apply. The
// same data source outside a check block still fails the plan.
func TestTerraformCheckDataSourceFailureWarns(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	data := `  data "terraform_remote_state" "peer" {
    backend = "local"
    config  = { path = "${path.module}/peer.tfstate" }
  }
`
	writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "a" {
  input = "x"
}
check "peer" {
` + data + `  assert {
    condition     = data.terraform_remote_state.peer.outputs.ok
    error_message = "the peer is not ok."
  }
}
`})
	warning := "Warning: " + filepath.Join(tf, "main.tf") + ":5:3: data source data.terraform_remote_state.peer (terraform_remote_state): read the remote state: no stored state was found"
	code, out, errOut := k.run("", "plan", "-c", tf)
	if code != 0 || !strings.Contains(out, warning) || !strings.Contains(out, "its read at plan failed") || !strings.Contains(out, "1 to create") {
		t.Errorf("plan: exit %d, want 0, the read's warning and the read during apply\n%s%s", code, out, errOut)
	}
	code, out, errOut = k.run("", "apply", "--auto-approve", "-c", tf)
	if code != 0 || !strings.Contains(out, "Warning: "+filepath.Join(tf, "main.tf")+":5:3: data source data.terraform_remote_state.peer (terraform_remote_state): read the remote state: no stored state was found") {
		t.Errorf("apply: exit %d, want 0 and the read's warning\n%s%s", code, out, errOut)
	}
	if code, out, _ := k.run("", "state", "list", "-c", tf); code != 0 || !strings.Contains(out, "terraform_data.a") {
		t.Errorf("state list after the apply: exit %d\n%s", code, out)
	}

	writeFiles(t, tf, map[string]string{"main.tf": strings.ReplaceAll(data, "\n  ", "\n") + `output "peer" {
  value = data.terraform_remote_state.peer.outputs
}
`})
	if code, out, errOut := k.run("", "plan", "-c", tf); code == 0 || !strings.Contains(out+errOut, "no stored state was found") {
		t.Errorf("a data source outside a check block that fails to read: exit %d, want the plan refused\n%s%s", code, out, errOut)
	}
}
