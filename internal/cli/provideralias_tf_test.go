package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestTerraformAliasedProviderInState: a resource of an aliased provider
// configuration (provider = TP.west) is recorded in OpenTofu's state as
// OpenTofu records it, its own type under provider[…].west, and read
// back as that configuration's: the apply failed writing the state ("its
// type TP-west_item is not the type of its address"), and a state
// OpenTofu wrote had the object served by the default configuration (the
// plan read it from the wrong cloud, or failed without one).
func TestTerraformAliasedProviderInState(t *testing.T) {
	tp := tfplugintest.SDK
	k, _ := newTerraformKyku(t, tp, map[string]string{"main.tf": `terraform {
  required_providers {
    TP = { source = "kyku/TP" }
  }
}
provider "TP" {
  alias = "west"
  dir   = "CLOUD"
}
resource "TP_item" "far" {
  provider = TP.west
  name     = "far"
  value    = "v"
}
`})
	tf := filepath.Join(k.dir, "tf")
	args := []string{"-c", tf} // Terraform's layout: terraform.tfstate
	if code, out, errOut := k.run("", append([]string{"apply", "--auto-approve"}, args...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile(filepath.Join(tf, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Resources []struct{ Type, Name, Provider string }
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	want := `provider["registry.opentofu.org/kyku/` + tp.Type + `"].west`
	if len(st.Resources) != 1 || st.Resources[0].Type != tp.Type+"_item" || st.Resources[0].Provider != want {
		t.Errorf("state resources %+v, want one %s_item under %s", st.Resources, tp.Type, want)
	}
	code, out, errOut := k.run("", append([]string{"plan", "--detailed-exitcode", "--refresh=all"}, args...)...)
	if code != 0 || !strings.Contains(out, "No changes.") {
		t.Errorf("plan after apply: exit %d, want no changes (the object read through TP.west)\n%s%s", code, out, errOut)
	}
}
