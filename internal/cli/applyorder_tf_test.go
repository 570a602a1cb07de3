package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// tfInstances are the instances of a local Terraform state (read as
// OpenTofu's: readTFState) by resource address: the IDs of each, its
// current object's first and a deposed object's after it, marked
// "deposed:".
func tfInstances(t *testing.T, path string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, r := range readTFState(t, path).Resources {
		for _, in := range r.Instances {
			var attrs struct{ ID string }
			if err := json.Unmarshal(in.Attributes, &attrs); err != nil {
				t.Fatal(err)
			}
			id := attrs.ID
			if in.Deposed != "" {
				id = "deposed:" + id
			}
			out[r.Addr()] = append(out[r.Addr()], id)
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

// TestTerraformCreateBeforeDestroyLeftDeposed: a create_before_destroy
// replacement whose dependent fails its postcondition at apply (it reads
// what apply made: unknown at plan) stops before destroying the object it
// replaced, as OpenTofu's does. The Terraform state then holds that
// object as deposed (the state could not be written at all: "unexpected
// '~'", nor by any later command), the next apply destroys it before it
// replaces the resource again (it was overwritten by the next deposed
// one, and lost), and a precondition reading what apply makes is
// checked before its change.
func TestTerraformCreateBeforeDestroyLeftDeposed(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{"main.tf": `variable "v" {
  default = "1"
}
resource "terraform_data" "server" {
  triggers_replace = var.v
  lifecycle {
    create_before_destroy = true
  }
}
resource "terraform_data" "uses" {
  input = terraform_data.server.id
  lifecycle {
    postcondition {
      condition     = var.v != "2" || self.output == "never"
      error_message = "v must not be 2."
    }
  }
}
`})
	args := []string{"-c", tf} // Terraform's layout: terraform.tfstate
	statePath := filepath.Join(tf, "terraform.tfstate")
	if code, out, errOut := k.run("", append([]string{"apply", "--auto-approve"}, args...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	first := tfInstances(t, statePath)["terraform_data.server"]
	code, out, errOut := k.run("", append([]string{"apply", "--auto-approve", "--var", "v=2"}, args...)...)
	if code != 1 || !strings.Contains(out+errOut, "main.tf:14:23: Resource postcondition failed: v must not be 2.") {
		t.Fatalf("apply: exit %d, want 1 and the postcondition failed\n%s%s", code, out, errOut)
	}
	left := tfInstances(t, statePath)["terraform_data.server"]
	if len(left) != 2 || left[0] == first[0] || left[1] != "deposed:"+first[0] {
		t.Fatalf("server's instances after the failed apply %q, want the replacement and %s deposed", left, first[0])
	}
	code, out, errOut = k.run("", append([]string{"apply", "--auto-approve", "--var", "v=3"}, args...)...)
	if code != 0 {
		t.Fatalf("apply after: exit %d\n%s%s", code, out, errOut)
	}
	if i, j := strings.Index(out, `destroy terraform_data "terraform_data.server~deposed": done`), strings.Index(out, `replace terraform_data "terraform_data.server": started`); i < 0 || j < 0 || i > j {
		t.Errorf("the deposed object is not destroyed before the next replace:\n%s", out)
	}
	last := tfInstances(t, statePath)["terraform_data.server"]
	if len(last) != 1 || last[0] == left[0] || strings.HasPrefix(last[0], "deposed:") {
		t.Errorf("server's instances %q, want one new object and no deposed one", last)
	}

	writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "a" {
  input = "bad"
}
resource "terraform_data" "b" {
  lifecycle {
    precondition {
      condition     = terraform_data.a.output != "bad"
      error_message = "a must not be bad."
    }
  }
}
`})
	code, out, errOut = k.run("", append([]string{"apply", "--auto-approve"}, args...)...)
	if code != 1 || !strings.Contains(out+errOut, "Resource precondition failed: a must not be bad.") {
		t.Fatalf("apply: exit %d, want the precondition checked once a is made\n%s%s", code, out, errOut)
	}
	if got := tfInstances(t, statePath); len(got["terraform_data.b"]) != 0 || len(got["terraform_data.a"]) != 1 {
		t.Errorf("state %v: want a made and b not", got)
	}
}
