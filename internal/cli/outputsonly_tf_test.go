package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformPlanChangingOnlyOutputs: a plan whose only change is an
// output's is a change, as OpenTofu's -detailed-exitcode has it (exit 2,
// so a pipeline applying on 2 records the output), and says so rather
// than "No changes"; once applied, the plan is empty (exit 0).
func TestTerraformPlanChangingOnlyOutputs(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	args := []string{"-c", tf, "--state-dir", filepath.Join(k.dir, ".kyku")}
	writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "a" {
  input = "x"
}
`})
	if code, out, errOut := k.run("", append([]string{"apply", "--auto-approve"}, args...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "a" {
  input = "x"
}
output "seen" {
  value = terraform_data.a.output
}
`})
	code, out, errOut := k.run("", append([]string{"plan", "--detailed-exitcode"}, args...)...)
	if code != 2 || !strings.Contains(out, "+ seen: x") || strings.Contains(out, "No changes.") ||
		!strings.Contains(out, "You can apply this plan to save these new output values to the state, without changing any real infrastructure.") {
		t.Fatalf("plan adding an output: exit %d, want 2 and the output's change\n%s%s", code, out, errOut)
	}
	if code, out, errOut := k.run("", append([]string{"apply", "--auto-approve"}, args...)...); code != 0 || !strings.Contains(out, "seen = x") {
		t.Fatalf("apply: exit %d, want the output recorded\n%s%s", code, out, errOut)
	}
	code, out, errOut = k.run("", append([]string{"plan", "--detailed-exitcode"}, args...)...)
	if code != 0 || !strings.Contains(out, "No changes.") {
		t.Errorf("plan once the output is recorded: exit %d, want 0 and no changes\n%s%s", code, out, errOut)
	}
}
