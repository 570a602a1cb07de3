package cli_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestTerraformLifecycleDestroyFalse: OpenTofu 1.12's lifecycle destroy
// = false. The object is never destroyed: a replace forgets it, then
// creates the replacement (forget-then-create); a block removed forgets
// it (state recorded skip_destroy, as OpenTofu's does), unless a removed
// block says destroy = true; a destroy forgets it and says so, exiting 1
// as tofu destroy does unless --suppress-forget-errors. prevent_destroy
// does not stop a replace, or a removal, that destroys nothing (doomed
// has none: what a removed block destroys it must not protect). Kyku
// refused the argument ("belongs in a removed block").
func TestTerraformLifecycleDestroyFalse(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the test providers")
	}
	k := newKyku(t, "")
	item := func(name, itemName string, keep bool) string {
		lc := ""
		if keep {
			lc = "\n  lifecycle {\n    destroy         = false\n    prevent_destroy = " + map[bool]string{true: "true", false: "false"}[name != "doomed"] + "\n  }"
		}
		return "resource \"fwtest_item\" \"" + name + "\" {\n  name = \"" + itemName + "\"" + lc + "\n}\n"
	}
	tf := fwtestRoot(t, k, item("kept", "kept-v1", true)+item("gone", "gone-v1", true)+item("plain", "plain-v1", false)+item("doomed", "doomed-v1", true))
	cloud := filepath.Join(k.dir, "items")
	k.env["KYKU_PLUGIN_MIRROR"] = tfplugintest.Mirror(t, t.TempDir(), tfplugintest.Framework)
	k.ok("init", "-c", tf)
	k.ok("apply", "--auto-approve", "-c", tf)
	data, err := os.ReadFile(filepath.Join(tf, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `"skip_destroy": true`); n != 3 {
		t.Errorf("state records skip_destroy on %d instances, want 3 (as OpenTofu's):\n%s", n, data)
	}
	// unset attributes written null, as OpenTofu writes them
	if n := strings.Count(string(data), `"tags": null`); n != 4 {
		t.Errorf("state writes tags null on %d instances, want 4:\n%s", n, data)
	}

	// kept is replaced (its name forces it), gone's block removed, doomed
	// removed with a removed block that says destroy = true.
	main := strings.SplitN(readFile(t, filepath.Join(tf, "main.tf")), "resource ", 2)[0]
	writeFiles(t, tf, map[string]string{"main.tf": main + item("kept", "kept-v2", true) + item("plain", "plain-v1", false) +
		"removed {\n  from = fwtest_item.doomed\n  lifecycle {\n    destroy = true\n  }\n}\n"})
	out := k.ok("plan", "-c", tf)
	for _, want := range []string{
		"forget-then-create (lifecycle destroy = false)",
		"forget fwtest_item fwtest_item.gone",
		"destroy fwtest_item fwtest_item.doomed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan does not say %q:\n%s", want, out)
		}
	}
	k.ok("apply", "--auto-approve", "-c", tf)
	if got, want := tfplugintest.Names(t, cloud), []string{"gone-v1", "kept-v1", "kept-v2", "plain-v1"}; !slices.Equal(got, want) {
		t.Errorf("cloud after the apply: %q, want %q (what destroy = false keeps stays; doomed destroyed)", got, want)
	}
	if got := k.ok("state", "list", "-c", tf); strings.TrimSpace(got) != "fwtest_item.kept\nfwtest_item.plain" {
		t.Errorf("state list:\n%s", got)
	}

	code, stdout, stderr := k.run("", "destroy", "--auto-approve", "-c", tf)
	if code == 0 || !strings.Contains(stderr, "destroy was successful but left behind forgotten instances (fwtest_item.kept)") {
		t.Errorf("destroy: exit %d, want the forgotten instance said\n%s%s", code, stdout, stderr)
	}
	if got, want := tfplugintest.Names(t, cloud), []string{"gone-v1", "kept-v1", "kept-v2"}; !slices.Equal(got, want) {
		t.Errorf("cloud after the destroy: %q, want %q", got, want)
	}

	// --suppress-forget-errors: the same destroy exits 0.
	k.ok("apply", "--auto-approve", "-c", tf)
	k.ok("destroy", "--auto-approve", "--suppress-forget-errors", "-c", tf)
}

// A lifecycle destroy that is not a constant bool is refused at it, in
// OpenTofu's words.
func TestTerraformLifecycleDestroyConstant(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{"main.tf": `variable "d" {
  default = false
}
resource "terraform_data" "x" {
  lifecycle {
    destroy = var.d
  }
}
`})
	code, out, errOut := k.run("", "plan", "-c", tf)
	if want := "main.tf:6:15: Invalid lifecycle destroy expression: The lifecycle destroy expression must be a boolean constant."; code == 0 || !strings.Contains(errOut, want) {
		t.Errorf("plan: exit %d, want %q\n%s%s", code, want, out, errOut)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestTerraformMovedNullToTerraformData: the migration off hashicorp/null,
// a moved block from a null_resource to a terraform_data, which OpenTofu's
// terraform_data takes (its ID kept, triggers its triggers_replace): a
// move, no change; the state written holds the terraform_data. Kyku
// refused any move across types.
func TestTerraformMovedNullToTerraformData(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{
		"terraform.tfstate": `{
  "version": 4,
  "terraform_version": "1.12.6",
  "serial": 3,
  "lineage": "0b6a6c3e-6f0e-4c43-9a4e-000000000001",
  "outputs": {},
  "resources": [
    {
      "mode": "managed",
      "type": "null_resource",
      "name": "x",
      "provider": "provider[\"registry.opentofu.org/hashicorp/null\"]",
      "instances": [
        {
          "schema_version": 0,
          "attributes": {
            "id": "1234567890",
            "triggers": {
              "a": "1"
            }
          },
          "sensitive_attributes": []
        }
      ]
    }
  ],
  "check_results": null
}
`,
		"main.tf": `resource "terraform_data" "x" {
  triggers_replace = {
    a = "1"
  }
}
moved {
  from = null_resource.x
  to   = terraform_data.x
}
`,
	})
	out := k.ok("plan", "-c", tf)
	if !strings.Contains(out, "move terraform_data terraform_data.x (from null_resource.x)") || !strings.Contains(out, "0 to replace") {
		t.Errorf("plan: want a move and no change:\n%s", out)
	}
	k.ok("apply", "--auto-approve", "-c", tf)
	st := readFile(t, filepath.Join(tf, "terraform.tfstate"))
	for _, want := range []string{`"type": "terraform_data"`, `"id": "1234567890"`, `"triggers_replace": {`, `provider[\"terraform.io/builtin/terraform\"]`} {
		if !strings.Contains(st, want) {
			t.Errorf("state lacks %s:\n%s", want, st)
		}
	}
	if strings.Contains(st, "null_resource") {
		t.Errorf("state still holds the null_resource:\n%s", st)
	}
	if out := k.ok("plan", "-c", tf); !strings.Contains(out, "No changes") {
		t.Errorf("plan after the move: want no changes:\n%s", out)
	}
}
