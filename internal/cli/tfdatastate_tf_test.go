package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTerraformDataStateAsOpenTofu: the state Kyku writes for
// terraform_data is OpenTofu's: under its built-in provider
// (provider["terraform.io/builtin/terraform"], in a module too; Kyku
// wrote registry.opentofu.org/hashicorp/terraform, which OpenTofu cannot
// start), and input and output with the types their expressions have (a
// map and a list as such: Kyku wrote objects and tuples, so OpenTofu
// planned an update of each, and replaced what replace_triggered_by
// names them).
func TestTerraformDataStateAsOpenTofu(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{
		"main.tf": `variable "zones" {
  type    = list(string)
  default = ["a", "b"]
}
resource "terraform_data" "tags" {
  input = tomap({ team = "infra" })
}
resource "terraform_data" "zones" {
  input            = var.zones
  triggers_replace = { v = 1 }
}
module "m" {
  source = "./m"
}
`,
		"m/main.tf": `resource "terraform_data" "in" {
  input = "x"
}
`,
	})
	k.ok("apply", "--auto-approve", "-c", tf)
	data, err := os.ReadFile(filepath.Join(tf, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Resources []struct {
			Module, Name, Provider string
			Instances              []struct {
				Attributes map[string]json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for _, r := range st.Resources {
		if r.Provider != `provider["terraform.io/builtin/terraform"]` {
			t.Errorf("%s %s: provider %s, want OpenTofu's built-in", r.Module, r.Name, r.Provider)
		}
		for _, in := range r.Instances {
			for _, attr := range []string{"input", "output", "triggers_replace"} {
				var dyn struct{ Type json.RawMessage }
				if raw, ok := in.Attributes[attr]; ok && string(raw) != "null" {
					if err := json.Unmarshal(raw, &dyn); err != nil {
						t.Fatal(err)
					}
					var b bytes.Buffer
					if err := json.Compact(&b, dyn.Type); err != nil {
						t.Fatal(err)
					}
					types[r.Name+"."+attr] = b.String()
				}
			}
		}
	}
	want := map[string]string{
		"tags.input": `["map","string"]`, "tags.output": `["map","string"]`,
		"zones.input": `["list","string"]`, "zones.output": `["list","string"]`, "zones.triggers_replace": `["object",{"v":"number"}]`,
		"in.input": `"string"`, "in.output": `"string"`,
	}
	if d := cmp.Diff(want, types); d != "" {
		t.Errorf("types in the state (-want +got):\n%s", d)
	}
}
