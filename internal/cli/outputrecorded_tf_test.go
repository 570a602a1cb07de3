package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformOutputListsWhatStateRecorded: kyku output of a Terraform
// configuration lists the outputs the last apply recorded, as OpenTofu's
// output command does: an output edited since keeps its applied value
// until the next apply, and after a destroy there is none (an output
// counting a resource's instances was evaluated again, and said 3 of
// nothing).
func TestTerraformOutputListsWhatStateRecorded(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	args := []string{"-c", tf}
	write := func(expr string) {
		writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "n" {
  count = 3
  input = count.index
}
output "count" {
  value = ` + expr + `
}
output "secret" {
  value     = "s3cr3t"
  sensitive = true
}
`})
	}
	write("length(terraform_data.n[*].id)")
	if code, out, errOut := k.run("", append([]string{"apply", "--auto-approve"}, args...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	write("length(terraform_data.n[*].id) * 10")
	code, out, errOut := k.run("", append([]string{"output"}, args...)...)
	if code != 0 || !strings.Contains(out, "count = 3") || !strings.Contains(out, "secret = <sensitive>") {
		t.Fatalf("output after editing it: exit %d, want the applied value 3 and the secret masked\n%s%s", code, out, errOut)
	}
	if code, out, errOut := k.run("", append([]string{"destroy", "--auto-approve"}, args...)...); code != 0 {
		t.Fatalf("destroy: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = k.run("", append([]string{"output", "--json"}, args...)...)
	if code != 0 || strings.TrimSpace(out) != "{}" {
		t.Errorf("output --json after destroy: exit %d, want {}\n%s%s", code, out, errOut)
	}
}
