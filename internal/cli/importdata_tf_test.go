package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestTerraformImportIDFromADataSource: an import block's id may read
// what is known before planning, as OpenTofu evaluates it: here a data
// source finding the object by name (import { id = data.x.found.id }).
// Kyku refused it ("cannot be determined until apply"). A plan that would
// change what the id read is refused.
func TestTerraformImportIDFromADataSource(t *testing.T) {
	tp := tfplugintest.SDK
	k, run := newTerraformKyku(t, tp, map[string]string{"main.tf": `terraform {
  required_providers {
    TP = { source = "kyku/TP" }
  }
}
provider "TP" {
  dir = "CLOUD"
}
data "TP_item" "found" {
  name = "made-by-hand"
}
import {
  to = TP_item.adopted
  id = data.TP_item.found.id
}
resource "TP_item" "adopted" {
  name  = "made-by-hand"
  value = "v"
}
`})
	item := `{"id":"hand-1","name":"made-by-hand","value":"v","revision":1}`
	if err := os.WriteFile(filepath.Join(k.items(), "hand-1.json"), []byte(item), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run("plan")
	if code != 0 || !strings.Contains(out, "import "+tp.Type+"_item "+tp.Type+"_item.adopted") || !strings.Contains(out, "hand-1") {
		t.Fatalf("plan: exit %d, want the import of hand-1\n%s%s", code, out, errOut)
	}
	if code, out, errOut := run("apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := run("plan", "--detailed-exitcode"); code != 0 {
		t.Errorf("plan after the import: exit %d, want no changes\n%s%s", code, out, errOut)
	}
}

// TestTerraformImportIDReadingWhatThePlanChanges: an import id reading an
// object the same plan changes is refused, as count is: what it read in
// state is not what apply will find.
func TestTerraformImportIDReadingWhatThePlanChanges(t *testing.T) {
	tp := tfplugintest.SDK
	files := func(value string) map[string]string {
		return map[string]string{"main.tf": `terraform {
  required_providers {
    TP = { source = "kyku/TP" }
  }
}
provider "TP" {
  dir = "CLOUD"
}
resource "TP_item" "src" {
  name  = "src"
  value = "` + value + `"
}
`}
	}
	k, run := newTerraformKyku(t, tp, files("one"))
	if code, out, errOut := run("apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	f := files("two")
	f["main.tf"] += `import {
  to = TP_item.copy
  id = replace(TP_item.src.id, "src", "other")
}
resource "TP_item" "copy" {
  name  = "other"
  value = "v"
}
`
	for name, text := range f {
		text = strings.ReplaceAll(strings.ReplaceAll(text, "CLOUD", k.items()), "TP", tp.Type)
		if err := os.WriteFile(filepath.Join(k.dir, "tf", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	item := `{"id":"other-1","name":"other","value":"v","revision":1}`
	if err := os.WriteFile(filepath.Join(k.items(), "other-1.json"), []byte(item), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run("plan")
	if code != 1 || !strings.Contains(errOut, `Invalid id argument: The "id" value of import to `+tp.Type+`_item.copy depends on `+tp.Type+`_item.src, which this plan will update`) {
		t.Errorf("plan: exit %d, want the import refused\n%s%s", code, out, errOut)
	}
}
