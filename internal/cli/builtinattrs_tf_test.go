package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformBuiltinAttributeTypo: an attribute terraform_data or
// terraform_remote_state does not have is refused wherever it is read,
// through a local too, as OpenTofu refuses it ("Unsupported attribute"):
// it read as null, so the plan set input to nothing without a word.
func TestTerraformBuiltinAttributeTypo(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "a" {}
locals {
  x = terraform_data.a.inputt
}
resource "terraform_data" "b" {
  input = local.x
}
data "terraform_remote_state" "net" {
  backend = "local"
  config = {
    path = "other.tfstate"
  }
}
output "o" {
  value = data.terraform_remote_state.net.output
}
`})
	code, out, errOut := k.run("", "plan", "-c", tf)
	for _, want := range []string{
		`main.tf:6:3: Unsupported attribute: This object has no argument, nested block, or exported attribute named "inputt"`,
		`main.tf:15:11: Unsupported attribute: This object has no argument, nested block, or exported attribute named "output"`,
	} {
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("plan: exit %d, want 1 and %s\n%s%s", code, want, out, errOut)
		}
	}
}
