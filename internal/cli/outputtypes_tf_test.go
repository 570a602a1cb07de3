package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTerraformOutputsKeepTheirTypes: state records an output's type as
// OpenTofu does, from its expression (toset, tomap, a variable's type
// constraint), not its value's (a list, a set and a tuple of the same
// elements are one JSON array); kyku output prints it as tofu output
// does (tolist([…]), toset, tomap, a heredoc), and --raw prints a
// string as it is.
func TestTerraformOutputsKeepTheirTypes(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	args := []string{"-c", tf} // Terraform's layout: terraform.tfstate
	writeFiles(t, tf, map[string]string{"main.tf": `variable "names" {
  type    = list(string)
  default = ["b", "a"]
}
resource "terraform_data" "d" {
  input = var.names
}
output "list" {
  value = var.names
}
output "set" {
  value = toset(terraform_data.d.output)
}
output "map" {
  value = tomap({ for n in terraform_data.d.output : n => length(n) })
}
output "tuple" {
  value = [for n in terraform_data.d.output : upper(n)]
}
output "text" {
  value = "two\nlines"
}
`})
	if code, out, errOut := k.run("", append([]string{"apply", "--auto-approve"}, args...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile(filepath.Join(tf, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Outputs map[string]struct{ Type any }
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"list":  []any{"list", "string"},
		"set":   []any{"set", "string"},
		"map":   []any{"map", "number"},
		"tuple": []any{"tuple", []any{"string", "string"}},
		"text":  "string",
	}
	got := map[string]any{}
	for n, o := range st.Outputs {
		got[n] = o.Type
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("output types in terraform.tfstate (-want +got):\n%s", diff)
	}
	code, out, errOut := k.run("", append([]string{"output"}, args...)...)
	wantText := `list = tolist([
  "b",
  "a",
])
map = tomap({
  "a" = 1
  "b" = 1
})
set = toset([
  "a",
  "b",
])
text = <<EOT
two
lines
EOT
tuple = [
  "B",
  "A",
]
`
	if code != 0 || out != wantText {
		t.Errorf("kyku output: exit %d\n%s", code, cmp.Diff(wantText, out)+errOut)
	}
	if code, out, errOut := k.run("", append([]string{"output", "--raw", "text"}, args...)...); code != 0 || out != "two\nlines" {
		t.Errorf("kyku output --raw text: exit %d, %q, want the string alone\n%s", code, out, errOut)
	}
	code, _, errOut = k.run("", append([]string{"output", "--raw", "set"}, args...)...)
	if code != 1 || !strings.Contains(errOut, `output "set" is of type set of string: --raw prints only strings, numbers and bools`) {
		t.Errorf("kyku output --raw set: exit %d, want 1 and why\n%s", code, errOut)
	}
}

// TestTerraformBigNumbersKeepTheirDigits: a number a float64 cannot show
// (9007199254740993) is read back from OpenTofu's state as it was
// written: read as the nearest float64, the next plan showed the output
// changed at every run (9.007199254740992e+15 → 9007199254740993) and
// kyku output printed the wrong number.
func TestTerraformBigNumbersKeepTheirDigits(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	args := []string{"-c", tf}
	writeFiles(t, tf, map[string]string{"main.tf": `output "big" {
  value = 9007199254740993 + 0
}
resource "terraform_data" "a" {
  input = 12345678901234567890
}
`})
	if code, out, errOut := k.run("", append([]string{"apply", "--auto-approve"}, args...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := k.run("", append([]string{"plan", "--detailed-exitcode"}, args...)...); code != 0 {
		t.Errorf("plan after apply: exit %d, want 0 (no changes)\n%s%s", code, out, errOut)
	}
	if code, out, errOut := k.run("", append([]string{"output", "big"}, args...)...); code != 0 || out != "9007199254740993\n" {
		t.Errorf("output big: exit %d, %q\n%s", code, out, errOut)
	}
}
