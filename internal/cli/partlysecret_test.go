package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanTextMasksOnlyTheSecretPart: a Terraform root setting an object
// whose one attribute reads a sensitive variable: the text plan shows
// the object, the secret attribute masked, the others in clear; --json
// shows the secret nowhere.
func TestPlanTextMasksOnlyTheSecretPart(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	main := `variable "pw" {
  type      = string
  sensitive = true
  default   = "pw-s3cr3t-e2e"
}
resource "terraform_data" "db" {
  input = {
    host     = "db.internal"
    password = var.pw
    ports    = [5432, 5433]
  }
}
`
	if err := os.MkdirAll(tf, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tf, "main.tf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-c", tf, "--state-dir", filepath.Join(k.dir, ".kyku")}
	code, out, errOut := k.run("", append([]string{"plan"}, args...)...)
	if code != 0 && code != 2 {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"host: db.internal", "password: (sensitive)", "5433,"} {
		if !strings.Contains(out, want) {
			t.Errorf("the text plan lacks %q:\n%s", want, out)
		}
	}
	code, js, errOut := k.run("", append([]string{"plan", "--json"}, args...)...)
	if code != 0 && code != 2 {
		t.Fatalf("plan --json: exit %d\n%s", code, errOut)
	}
	if strings.Contains(out+js, "pw-s3cr3t-e2e") {
		t.Errorf("a plan shows the secret:\n%s\n%s", out, js)
	}
}
