package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/cli"
)

// TestTerraformCLIArgsFromTheEnvironment: TF_CLI_ARGS and
// TF_CLI_ARGS_<command> give arguments as OpenTofu reads them (split as
// a shell splits words, after the command's name): a pipeline setting
// TF_CLI_ARGS_plan="-var-file=prod.tfvars" plans prod's values with
// Kyku too, where they were ignored. A flag Kyku does not take says where
// it came from; a quote left open is refused naming the variable.
func TestTerraformCLIArgsFromTheEnvironment(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{
		"main.tf": `variable "size" {
  default = "small"
}
variable "name" {
  default = "none"
}
resource "terraform_data" "a" {
  input = "${var.size}/${var.name}"
}
`,
		"prod.tfvars": "size = \"large\"\n",
	})
	k.env["TF_CLI_ARGS_plan"] = `-var-file=` + filepath.Join(tf, "prod.tfvars") + ` -var 'name=two words'`
	k.env["TF_CLI_ARGS"] = "-compact-warnings"
	code, out, errOut := k.run("", "plan", "-c", tf)
	if code != 0 || !strings.Contains(out, "input: large/two words") {
		t.Errorf("plan with TF_CLI_ARGS_plan: exit %d, want its variables taken\n%s%s", code, out, errOut)
	}
	// The command line's own arguments come after: its -var-file wins.
	writeFiles(t, tf, map[string]string{"dev.tfvars": "size = \"tiny\"\n"})
	code, out, errOut = k.run("", "plan", "-c", tf, "-var-file", filepath.Join(tf, "dev.tfvars"))
	if code != 0 || !strings.Contains(out, "input: tiny/two words") {
		t.Errorf("plan with TF_CLI_ARGS_plan and -var-file: exit %d, want the command line's file to win\n%s%s", code, out, errOut)
	}
	// TF_CLI_ARGS_apply is apply's alone.
	delete(k.env, "TF_CLI_ARGS_plan")
	k.env["TF_CLI_ARGS_apply"] = "-var-file=nothing.tfvars"
	if code, out, errOut := k.run("", "plan", "-c", tf); code != 0 || !strings.Contains(out, "input: small/none") {
		t.Errorf("plan with TF_CLI_ARGS_apply set: exit %d, want the defaults\n%s%s", code, out, errOut)
	}
	// -no-color, a job's usual TF_CLI_ARGS, is every command's, as OpenTofu's.
	for _, cmd := range []string{"version", "schema"} {
		noColor := func(k string) string { return map[string]string{"TF_CLI_ARGS": "-no-color"}[k] }
		if code, _, errOut := runBare(t, cli.Env{Getenv: noColor}, cmd); code != 0 {
			t.Errorf("%s with TF_CLI_ARGS=-no-color: exit %d\n%s", cmd, code, errOut)
		}
	}
	k.env["TF_CLI_ARGS"] = "-refresh-only"
	if code, _, errOut := k.run("", "plan", "-c", tf); code != 1 || !strings.Contains(errOut, "unknown flag --refresh-only") || !strings.Contains(errOut, "arguments from TF_CLI_ARGS are read too") {
		t.Errorf("plan with TF_CLI_ARGS=-refresh-only: exit %d, want refused saying where it came from\n%s", code, errOut)
	}
	k.env["TF_CLI_ARGS"] = `-var "name=x`
	if code, _, errOut := k.run("", "plan", "-c", tf); code != 1 || !strings.Contains(errOut, "TF_CLI_ARGS: a double quote is not closed") {
		t.Errorf("plan with an open quote in TF_CLI_ARGS: exit %d, want refused naming it\n%s", code, errOut)
	}
}
