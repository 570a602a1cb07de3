package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformOutputPreconditionsOnWhatApplyMakes: output preconditions
// reading what the apply makes (unknown at plan), a called module's and
// the root's, are decided once it is made: the apply records its changes
// and fails on them, as OpenTofu does; the next plan, knowing the values,
// refuses them at plan. A called module's was never checked.
func TestTerraformOutputPreconditionsOnWhatApplyMakes(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{
		"m/main.tf": `resource "terraform_data" "x" {
  input = "v"
}
output "out" {
  value = terraform_data.x.output
  precondition {
    condition     = terraform_data.x.output == "w"
    error_message = "x's output must be w."
  }
}
`,
		"main.tf": `module "m" {
  source = "./m"
}
resource "terraform_data" "root" {
  input = "r"
}
output "root" {
  value = terraform_data.root.output
  precondition {
    condition     = terraform_data.root.output == "s"
    error_message = "root's output must be s."
  }
}
`})
	args := []string{"-c", tf}
	wants := []string{
		"m/main.tf:7:21: Module output value precondition failed: x's output must be w.",
		"main.tf:10:21: Module output value precondition failed: root's output must be s.",
	}
	code, out, errOut := k.run("", append([]string{"apply", "--auto-approve"}, args...)...)
	for _, want := range wants {
		if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(out, "Apply complete: 2 succeeded") {
			t.Errorf("apply: exit %d, want 1, both objects made and %s\n%s%s", code, want, out, errOut)
		}
	}
	code, out, errOut = k.run("", append([]string{"plan"}, args...)...)
	for _, want := range wants {
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("plan: exit %d, want 1 and %s\n%s%s", code, want, out, errOut)
		}
	}
}
