package cli_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestTerraformNonsensitiveOutput: an output reading an attribute its
// provider's schema marks sensitive is refused unless declared sensitive,
// in OpenTofu's words at the output, and taken when nonsensitive() takes
// the mark off (it was refused as any other, in kyku.yaml's words).
func TestTerraformNonsensitiveOutput(t *testing.T) {
	files := func(value string) map[string]string {
		return map[string]string{"main.tf": `terraform {
  required_providers {
    TP = { source = "kyku/TP" }
  }
}
provider "TP" {
  dir = "CLOUD"
}
resource "TP_password" "pw" {
  length = 10
}
output "len" {
  value = ` + value + `
}
`}
	}
	_, run := newTerraformKyku(t, tfplugintest.Framework, files("nonsensitive(length(TP_password.pw.result))"))
	code, out, errOut := run("apply", "--auto-approve")
	if code != 0 || !strings.Contains(out, "len = 10") {
		t.Fatalf("apply: exit %d, want the length shown\n%s%s", code, out, errOut)
	}

	_, run = newTerraformKyku(t, tfplugintest.Framework, files("length(TP_password.pw.result)"))
	code, out, errOut = run("plan")
	if code != 1 || !strings.Contains(errOut, `main.tf:13:11: Output refers to sensitive values: output "len" reads fwtest_password.pw.result`) {
		t.Errorf("plan of an output reading a secret plainly: exit %d, want 1 and it refused\n%s%s", code, out, errOut)
	}
}
