package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformTaintedObjectsAreReplaced: an object OpenTofu marked
// tainted in its state (a create that failed part way, or tofu taint)
// is replaced by the next plan, as OpenTofu's plan replaces it, saying
// why; once replaced the mark is gone and the plan is empty. A tainted
// object prevent_destroy protects is refused, as in OpenTofu.
func TestTerraformTaintedObjectsAreReplaced(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	args := []string{"-c", tf}
	write := func(protect bool) {
		writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "a" {
  input = "x"
  lifecycle {
    prevent_destroy = ` + map[bool]string{true: "true", false: "false"}[protect] + `
  }
}
resource "terraform_data" "b" {
  input = terraform_data.a.id
}
`})
	}
	write(false)
	if code, out, errOut := k.run("", append([]string{"apply", "--auto-approve"}, args...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	statePath := filepath.Join(tf, "terraform.tfstate")
	taint := func() {
		t.Helper()
		data, err := os.ReadFile(statePath)
		if err != nil {
			t.Fatal(err)
		}
		var st map[string]any
		if err := json.Unmarshal(data, &st); err != nil {
			t.Fatal(err)
		}
		for _, r := range st["resources"].([]any) {
			r := r.(map[string]any)
			if r["name"] == "a" {
				r["instances"].([]any)[0].(map[string]any)["status"] = "tainted" // as tofu taint writes it
			}
		}
		if data, err = json.Marshal(st); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(statePath, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	taint()
	code, out, errOut := k.run("", append([]string{"plan"}, args...)...)
	if code != 0 || !strings.Contains(out, "1 to update, 1 to replace") || !strings.Contains(out, "# tainted, so it must be replaced") {
		t.Fatalf("plan of a tainted object: exit %d, want it replaced and b updated\n%s%s", code, out, errOut)
	}
	if code, out, errOut := k.run("", append([]string{"apply", "--auto-approve"}, args...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	if data, _ := os.ReadFile(statePath); strings.Contains(string(data), "tainted") {
		t.Errorf("the replaced object is still marked tainted:\n%s", data)
	}
	if code, out, errOut := k.run("", append([]string{"plan", "--detailed-exitcode"}, args...)...); code != 0 {
		t.Errorf("plan after the replace: exit %d, want 0 (no changes)\n%s%s", code, out, errOut)
	}
	write(true)
	taint()
	code, out, errOut = k.run("", append([]string{"plan"}, args...)...)
	if code != 1 || !strings.Contains(errOut, "Resource instance cannot be destroyed") || !strings.Contains(errOut, "it is tainted") {
		t.Errorf("plan of a tainted protected object: exit %d, want 1 and the refusal\n%s%s", code, out, errOut)
	}
}
