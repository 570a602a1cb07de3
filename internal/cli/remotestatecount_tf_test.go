package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformForEachOverRemoteState: for_each and count read another
// root's outputs through terraform_remote_state at plan, as OpenTofu
// reads them; a remote
// state that cannot be read is said at its data source, as the reason
// the count cannot be known, not only "cannot be determined until
// apply".
func TestTerraformForEachOverRemoteState(t *testing.T) {
	k := newKyku(t, "")
	if err := os.Mkdir(filepath.Join(k.dir, ".git"), 0o755); err != nil { // one repository, both roots
		t.Fatal(err)
	}
	net, app := filepath.Join(k.dir, "net"), filepath.Join(k.dir, "app")
	writeFiles(t, net, map[string]string{"main.tf": `output "zones" {
  value = { a = "10.0.1.0/24", b = "10.0.2.0/24" }
}
`})
	if code, out, errOut := k.run("", "apply", "--auto-approve", "-c", net); code != 0 {
		t.Fatalf("apply net: exit %d\n%s%s", code, out, errOut)
	}
	writeFiles(t, app, map[string]string{"main.tf": `data "terraform_remote_state" "net" {
  backend = "local"
  config = {
    path = "../net/terraform.tfstate"
  }
}
resource "terraform_data" "zone" {
  for_each = data.terraform_remote_state.net.outputs.zones
  input    = each.value
}
resource "terraform_data" "n" {
  count = length(data.terraform_remote_state.net.outputs.zones)
}
`})
	code, out, errOut := k.run("", "plan", "-c", app)
	if code != 0 || !strings.Contains(out, `terraform_data.zone["a"]`) || !strings.Contains(out, "terraform_data.n[1]") || !strings.Contains(out, "4 to create") {
		t.Errorf("plan reading the remote state's set: exit %d, want zone[\"a\"], zone[\"b\"], n[0], n[1]\n%s%s", code, out, errOut)
	}
	if err := os.Remove(filepath.Join(k.dir, ".git")); err != nil { // ../net is now outside app's repository
		t.Fatal(err)
	}
	code, out, errOut = k.run("", "plan", "-c", app)
	want := `main.tf:1:1: data source data.terraform_remote_state.net (terraform_remote_state): read the remote state: backend "local": path "../net/terraform.tfstate" is outside the configuration's repository`
	if code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("plan reading a state it may not: exit %d, want 1 and why\n%s%s", code, out, errOut)
	}
}
