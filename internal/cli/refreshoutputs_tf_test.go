package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestTerraformRefreshRecordsOutputs: a refresh that finds an object
// gone records the outputs as it leaves them, as OpenTofu's apply
// -refresh-only does: one reading the object is no longer recorded (it
// kept the gone object's ID), one reading none stays.
func TestTerraformRefreshRecordsOutputs(t *testing.T) {
	k, run := newTerraformKyku(t, tfplugintest.Framework, map[string]string{"main.tf": `terraform {
  required_providers {
    TP = { source = "kyku/TP" }
  }
}
provider "TP" {
  dir = "CLOUD"
}
resource "TP_item" "web" {
  name = "web"
}
output "id" {
  value = TP_item.web.id
}
output "fixed" {
  value = "kept"
}
`})
	if code, out, errOut := run("apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	items, _ := filepath.Glob(filepath.Join(k.items(), "web-*.json"))
	if len(items) != 1 {
		t.Fatalf("items %v", items)
	}
	if err := os.Remove(items[0]); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run("refresh"); code != 0 {
		t.Fatalf("refresh: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := run("output")
	if code != 0 || strings.Contains(out, "id = ") || !strings.Contains(out, `fixed = "kept"`) {
		t.Errorf("outputs after the refresh: exit %d, want fixed alone\n%s%s", code, out, errOut)
	}
}
