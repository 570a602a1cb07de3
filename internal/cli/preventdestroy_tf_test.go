package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformPreventDestroy: a resource with prevent_destroy is not
// destroyed, by kyku destroy (OpenTofu's words) nor by a change removing
// its block: Kyku keeps what the last apply recorded, where OpenTofu
// would forget the protection with the block (a pull request deleting a
// database's lines would destroy it).
func TestTerraformPreventDestroy(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	args := []string{"-c", tf}
	writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "db" {
  input = "x"
  lifecycle {
    prevent_destroy = true
  }
}
resource "terraform_data" "app" {}
`})
	if code, out, errOut := k.run("", append([]string{"apply", "--auto-approve"}, args...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := k.run("", append([]string{"destroy", "--auto-approve"}, args...)...)
	if code != 1 || !strings.Contains(errOut, "Resource instance cannot be destroyed: Resource instance terraform_data.db has prevent_destroy set") {
		t.Errorf("destroy: exit %d, want 1 and terraform_data.db refused\n%s%s", code, out, errOut)
	}
	writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "app" {}
`})
	code, out, errOut = k.run("", append([]string{"plan"}, args...)...)
	if code != 1 || !strings.Contains(errOut, "terraform_data.db had prevent_destroy set when last applied, and the configuration no longer has it: Kyku keeps the protection") {
		t.Errorf("plan removing its block: exit %d, want 1 and the destroy refused\n%s%s", code, out, errOut)
	}
}
