package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestTerraformOutputsOfSchemaTypes: an output reading a provider's list
// or map attribute records the type its schema gives it (["list",
// "string"], ["map","string"]) in OpenTofu's state, as OpenTofu records
// it: Kyku recorded a tuple and an object (canonical values hold no
// more), so OpenTofu planned an update of each output after a Kyku apply
// (-detailed-exitcode 2 with nothing changed). A terraform_data whose
// input reads the list records a list too (OpenTofu planned an update of
// it, and replaced what replace_triggered_by names it).
func TestTerraformOutputsOfSchemaTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the test providers")
	}
	k := newKyku(t, "")
	tf := fwtestRoot(t, k, `resource "fwtest_item" "a" {
  name = "a"
  tags = { team = "infra" }
}
data "fwtest_list" "all" {
  depends_on = [fwtest_item.a]
}
output "names" {
  value = data.fwtest_list.all.names
}
output "values" {
  value = data.fwtest_list.all.values
}
output "tags" {
  value = fwtest_item.a.tags
}
output "whole_tags" {
  value = fwtest_item.a
}
resource "terraform_data" "names" {
  input = data.fwtest_list.all.names
}
`)
	k.env["KYKU_PLUGIN_MIRROR"] = tfplugintest.Mirror(t, t.TempDir(), tfplugintest.Framework)
	k.ok("init", "-c", tf)
	k.ok("apply", "--auto-approve", "-c", tf)
	data, err := os.ReadFile(filepath.Join(tf, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Outputs   map[string]struct{ Type any }
		Resources []struct {
			Type      string
			Instances []struct {
				Attributes map[string]any
			}
		}
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for name, o := range st.Outputs {
		got[name] = o.Type
		if name == "whole_tags" { // the object's tags attribute alone
			got[name] = o.Type.([]any)[1].(map[string]any)["tags"]
		}
	}
	for _, r := range st.Resources {
		if r.Type == "terraform_data" {
			for _, attr := range []string{"input", "output"} {
				got["terraform_data."+attr] = r.Instances[0].Attributes[attr].(map[string]any)["type"]
			}
		}
	}
	want := map[string]any{
		"terraform_data.input": []any{"list", "string"}, "terraform_data.output": []any{"list", "string"},
		"names":      []any{"list", "string"},
		"values":     []any{"map", "string"},
		"tags":       []any{"map", "string"},
		"whole_tags": []any{"map", "string"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("output types in the state (-want +got):\n%s", d)
	}
}

// fwtestRoot writes a Terraform root of k's directory using the framework
// test provider (its cloud a directory beside it) with resources, and
// returns the root's directory.
func fwtestRoot(t *testing.T, k *kyku, resources string) string {
	t.Helper()
	tf := filepath.Join(k.dir, "tf")
	cloud := filepath.Join(k.dir, "items")
	if err := os.MkdirAll(cloud, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, tf, map[string]string{"main.tf": `terraform {
  required_providers {
    fwtest = { source = "kyku/fwtest" }
  }
}
provider "fwtest" {
  dir = "` + cloud + `"
}
` + resources})
	return tf
}
