package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tfInstances are the instances of a local Terraform state by resource
// address: the IDs of each, its current object's first and a deposed
// object's after it, marked "deposed:".
func tfInstances(t *testing.T, path string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Resources []struct {
			Type, Name string
			Instances  []struct {
				Deposed    string
				Attributes map[string]any
			}
		}
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, r := range f.Resources {
		for _, in := range r.Instances {
			id, _ := in.Attributes["id"].(string)
			if in.Deposed != "" {
				id = "deposed:" + id
			}
			out[r.Type+"."+r.Name] = append(out[r.Type+"."+r.Name], id)
		}
	}
	return out
}

// TestTerraformUpdateReadingAReplacement: terraform_data whose input is
// another object's ID is updated when that object is replaced, keeping
// its own ID (the built-in provider planned it again at apply without its
// prior object and refused: "planned differently … (id differs)").
func TestTerraformUpdateReadingAReplacement(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{"main.tf": `variable "v" {
  default = "1"
}
resource "terraform_data" "server" {
  triggers_replace = var.v
}
resource "terraform_data" "uses" {
  input = terraform_data.server.id
}
output "same" {
  value = terraform_data.uses.output == terraform_data.server.id
}
`})
	args := []string{"-c", tf} // Terraform's layout: terraform.tfstate
	if code, out, errOut := k.run("", append([]string{"apply", "--auto-approve"}, args...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	before := tfInstances(t, filepath.Join(tf, "terraform.tfstate"))
	code, out, errOut := k.run("", append([]string{"apply", "--auto-approve", "--var", "v=2"}, args...)...)
	if code != 0 || !strings.Contains(out, "same = true") {
		t.Fatalf("apply replacing server: exit %d, want uses updated to the replacement's ID\n%s%s", code, out, errOut)
	}
	after := tfInstances(t, filepath.Join(tf, "terraform.tfstate"))
	if after["terraform_data.uses"][0] != before["terraform_data.uses"][0] || after["terraform_data.server"][0] == before["terraform_data.server"][0] {
		t.Errorf("IDs before %v, after %v: want server's new and uses' kept", before, after)
	}
}
