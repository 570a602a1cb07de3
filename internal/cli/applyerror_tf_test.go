package cli_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestTerraformApplyErrorAtItsBlock: a change its provider fails is said
// at its resource's block with the source line, as OpenTofu says an
// apply's errors ("with TP_item.a, on main.tf line 8"), after the apply's
// summary; it was one line naming no file.
func TestTerraformApplyErrorAtItsBlock(t *testing.T) {
	_, run := newTerraformKyku(t, tfplugintest.Framework, map[string]string{"main.tf": `terraform {
  required_providers {
    TP = { source = "kyku/TP" }
  }
}
provider "TP" {
  dir = "/nonexistent/cloud"
}
resource "TP_item" "a" {
  name = "a"
}
`})
	code, out, errOut := run("apply", "--auto-approve")
	if code != 1 || !strings.Contains(out, "Apply incomplete: 0 succeeded, 1 failed") ||
		!strings.Contains(errOut, "main.tf:9:1: create fwtest_item.a: ") || !strings.Contains(errOut, `    9 | resource "fwtest_item" "a" {`) {
		t.Errorf("apply: exit %d, want 1 and the failure at main.tf:9:1 with its line\n%s%s", code, out, errOut)
	}
}
