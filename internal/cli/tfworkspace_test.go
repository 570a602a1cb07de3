package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformWorkspaceSelectedAsOpenTofuSelectsIt: with neither -e nor
// KYKU_ENV, a Terraform root's workspace is TF_WORKSPACE's, else the one
// tofu workspace select recorded in .terraform/environment, as OpenTofu
// selects it: a pipeline setting TF_WORKSPACE plans and applies that
// workspace's state, not the default one's (where it would plan every
// object again). -e wins; "default" is the default workspace.
func TestTerraformWorkspaceSelectedAsOpenTofuSelectsIt(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	args := []string{"-c", tf}
	writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "a" {
  input = terraform.workspace
}
output "ws" {
  value = terraform.workspace
}
`})
	k.env["TF_WORKSPACE"] = "staging"
	if code, out, errOut := k.run("", append([]string{"apply", "--auto-approve"}, args...)...); code != 0 || !strings.Contains(out, "ws = staging") {
		t.Fatalf("apply with TF_WORKSPACE=staging: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(tf, "terraform.tfstate.d", "staging", "terraform.tfstate")); err != nil {
		t.Errorf("the staging workspace's state: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tf, "terraform.tfstate")); err == nil {
		t.Error("the default workspace has a state: TF_WORKSPACE was not taken")
	}
	plan := func(what string, extra ...string) string {
		t.Helper()
		code, out, errOut := k.run("", append(append([]string{"plan"}, args...), extra...)...)
		if code != 0 {
			t.Fatalf("plan %s: exit %d\n%s%s", what, code, out, errOut)
		}
		return out
	}
	delete(k.env, "TF_WORKSPACE")
	if err := os.MkdirAll(filepath.Join(tf, ".terraform"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tf, ".terraform", "environment"), []byte("staging"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := plan("with staging selected"); !strings.Contains(out, "No changes.") {
		t.Errorf("plan with staging selected (.terraform/environment): want no changes\n%s", out)
	}
	k.env["TF_WORKSPACE"] = "default"
	if out := plan("with TF_WORKSPACE=default"); !strings.Contains(out, "1 to create") {
		t.Errorf("plan with TF_WORKSPACE=default over the selected staging: want the default workspace's (1 to create)\n%s", out)
	}
	k.env["TF_WORKSPACE"] = "staging"
	if out := plan("with -e prod", "-e", "prod"); !strings.Contains(out, "1 to create") {
		t.Errorf("plan -e prod with TF_WORKSPACE=staging: want prod's (1 to create)\n%s", out)
	}
	k.env["TF_WORKSPACE"] = "../up"
	if code, _, errOut := k.run("", append([]string{"plan"}, args...)...); code != 1 || !strings.Contains(errOut, `workspace "../up" (from TF_WORKSPACE)`) {
		t.Errorf("plan with TF_WORKSPACE=../up: exit %d, want 1 naming it\n%s", code, errOut)
	}
}
