package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformImpureFunctionsKnownWhenApplying: a local or an output
// reading no resource but calling timestamp() or uuid() is unknown at
// plan and known when applying, as OpenTofu evaluates them: the resource
// reading the local is created with its value (the apply failed, "a
// referenced resource has no provider ID or output yet"), and the outputs
// are recorded with theirs (state held the text "(known after apply)").
func TestTerraformImpureFunctionsKnownWhenApplying(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{"main.tf": `locals {
  stamp = timestamp()
}
resource "terraform_data" "x" {
  input = local.stamp
}
output "stamped" {
  value = can(regex("^[0-9]{4}-", local.stamp))
}
output "id_len" {
  value = length(uuid())
}
`})
	args := []string{"-c", tf, "--state-dir", filepath.Join(k.dir, ".kyku")}
	code, out, errOut := k.run("", append([]string{"plan"}, args...)...)
	if code != 0 && code != 2 || !strings.Contains(out, "+ stamped: (known after apply)") || !strings.Contains(out, "+ id_len: (known after apply)") {
		t.Fatalf("plan: exit %d, want the outputs unknown\n%s%s", code, out, errOut)
	}
	code, out, errOut = k.run("", append([]string{"apply", "--auto-approve"}, args...)...)
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"stamped = true", "id_len = 36"} {
		if !strings.Contains(out, want) {
			t.Errorf("apply's outputs lack %q:\n%s", want, out)
		}
	}
	code, out, errOut = k.run("", append([]string{"output"}, args...)...)
	if code != 0 {
		t.Fatalf("output: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"stamped = true", "id_len = 36"} {
		if !strings.Contains(out, want) {
			t.Errorf("the outputs state recorded lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "known after apply") {
		t.Errorf("state recorded an output as not known:\n%s", out)
	}
}
