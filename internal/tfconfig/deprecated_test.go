package tfconfig_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfconfig"
)

// TestDeprecatedWarnings: a module's deprecated variable set by its
// callers warns once, at the first call in the files that sets it (not
// once a call or an instance); a deprecated output read by the caller
// warns at each place reading it, naming the output's address; a
// deprecated root variable warns when given a value, not when left to
// its default; as OpenTofu 1.12 warns of them.
func TestDeprecatedWarnings(t *testing.T) {
	m, _ := loadDir(t, map[string]string{
		"main.tf": `variable "old_root" {
  default    = "d"
  deprecated = "use new_root"
}
variable "quiet" {
  default    = "d"
  deprecated = "not given: no warning"
}
module "b" {
  source = "./m"
  count  = 2
  old    = "y"
}
module "a" {
  source   = "./m"
  for_each = toset(["k"])
  old      = "x"
}
output "read" {
  value = module.a["k"].old_out
}
output "whole" {
  value = module.b[0].old_out
}
`,
		"m/main.tf": `variable "old" {
  type       = string
  default    = null
  deprecated = "use new instead"
}
output "old_out" {
  value      = var.old
  deprecated = "gone soon"
}
`,
	})
	cfg, err := tfconfig.Expand(m, tfconfig.Inputs{Vars: []tfconfig.VarArg{{Name: "old_root", Value: "given"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(cfg.Warnings, "\n")
	for _, want := range []string{
		`main.tf:1:1: Deprecated variable used from the root module: The root variable "old_root" is deprecated with the following message: use new_root`,
		"main.tf:12:12: Variable marked as deprecated by the module author: Variable \"old\" is marked as deprecated with the following message:\nuse new instead",
		"main.tf:20:11: Value derived from a deprecated source: This value is derived from module.a[\"k\"].old_out, which is deprecated with the following message:\n\ngone soon",
		"main.tf:23:11: Value derived from a deprecated source: This value is derived from module.b[0].old_out, which is deprecated with the following message:\n\ngone soon",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack:\n%s\ngot:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "Variable marked as deprecated"); n != 1 {
		t.Errorf("%d warnings of the module's deprecated variable, want 1 (three instances set it):\n%s", n, got)
	}
	if strings.Contains(got, "quiet") {
		t.Errorf("a deprecated root variable left to its default warns:\n%s", got)
	}
}
