package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformDependsOnALocal: depends_on may name a local or a
// variable, as OpenTofu allows, and then waits for what it reads; a cycle
// made that way is said where the first resource on it is declared.
func TestTerraformDependsOnALocal(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	write := func(text string) { writeFiles(t, tf, map[string]string{"main.tf": text}) }
	args := []string{"-c", tf, "--state-dir", filepath.Join(k.dir, ".kyku")}
	write(`resource "terraform_data" "a" {
  input = "x"
}
locals {
  l = terraform_data.a.id
}
resource "terraform_data" "b" {
  depends_on = [local.l]
}
`)
	code, out, errOut := k.run("", append([]string{"plan"}, args...)...)
	if code != 0 && code != 2 {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "terraform_data.b   (level 1)") {
		t.Errorf("terraform_data.b does not wait for terraform_data.a, which local.l reads:\n%s", out)
	}

	write(`resource "terraform_data" "a" {
  input = "x"
  lifecycle {
    replace_triggered_by = [terraform_data.b]
  }
}
locals {
  l = terraform_data.a.id
}
resource "terraform_data" "b" {
  depends_on = [local.l]
}
`)
	code, out, errOut = k.run("", append([]string{"plan"}, args...)...)
	if code != 1 || !strings.Contains(errOut, "main.tf:1:1: dependency cycle: terraform_data.a → terraform_data.b → terraform_data.a") {
		t.Errorf("plan of a cycle: exit %d, want 1 and the cycle at main.tf:1:1\n%s%s", code, out, errOut)
	}
}

// TestTerraformErrorsShowTheirLine: what the engine and the providers
// refuse in a .tf file (an argument the schema lacks) is said with the
// line it is on, marked, as the configuration's own errors are.
func TestTerraformErrorsShowTheirLine(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{"main.tf": "resource \"terraform_data\" \"d\" {\n  inputt = 1\n}\n"})
	code, out, errOut := k.run("", "plan", "-c", tf, "--state-dir", filepath.Join(k.dir, ".kyku"))
	want := "main.tf:2:3: Unsupported argument: An argument named \"inputt\" is not expected here. Did you mean \"input\"?\n" +
		"    2 |   inputt = 1\n" +
		"      |   ^^^^^^\n"
	if code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("plan: exit %d, want 1 and\n%s\n%s%s", code, want, out, errOut)
	}
}

// TestTerraformResourcePrefixIsAReference: resource.TYPE.NAME, OpenTofu's
// other name for TYPE.NAME, is a reference the plan orders by, in an
// argument and in depends_on, as TYPE.NAME is.
func TestTerraformResourcePrefixIsAReference(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	main := `resource "terraform_data" "a" {
  input = "x"
}
resource "terraform_data" "b" {
  input = resource.terraform_data.a.output
}
resource "terraform_data" "c" {
  depends_on = [resource.terraform_data.a]
}
`
	writeFiles(t, tf, map[string]string{"main.tf": main})
	code, out, errOut := k.run("", "plan", "-c", tf, "--state-dir", filepath.Join(k.dir, ".kyku"))
	if code != 0 && code != 2 {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{`terraform_data.b   (level 1)`, `terraform_data.c   (level 1)`, "input: (known after apply)"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
}
