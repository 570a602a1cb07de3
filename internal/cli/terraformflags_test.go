package cli_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
)

// TestTerraformCIFlags: the flags a Terraform pipeline passes are taken
// as Terraform means them (-input=false, -no-color, -refresh=false and
// -refresh=true), and the ones Kyku has otherwise are refused naming
// what it has.
func TestTerraformCIFlags(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "a" {
  input = "x"
}
`})
	var out, errOut bytes.Buffer
	code := cli.Run(t.Context(), []string{"plan", "-c", tf, "-input=false", "-no-color", "-refresh=false"}, cli.Env{
		Stdout: &out, Stderr: &errOut, StdoutIsTerminal: true,
		Getenv: func(string) string { return "" }, Providers: provider.Registry{"sim": sim.Factory},
	})
	if code != 0 || strings.Contains(out.String(), "\x1b[") || !strings.Contains(out.String(), "+ create terraform_data") {
		t.Errorf("plan -input=false -no-color -refresh=false on a terminal: exit %d, want 0 and no colour\n%q%s", code, out.String(), errOut.String())
	}
	if code, out, errOut := k.run("", "plan", "-c", tf, "-refresh=true"); code != 0 || !strings.Contains(out, "+ create") {
		t.Errorf("plan -refresh=true: exit %d\n%s%s", code, out, errOut)
	}
	// OpenTofu's output flags a pipeline passes are taken.
	if code, out, errOut := k.run("", "plan", "-c", tf, "-concise", "-consolidate-warnings=false", "-consolidate-errors"); code != 0 || !strings.Contains(out, "+ create") {
		t.Errorf("plan -concise -consolidate-warnings=false -consolidate-errors: exit %d\n%s%s", code, out, errOut)
	}
	code2, _, errOut2 := k.run("", "plan", "-c", tf, "-refresh-only")
	if code2 != 1 || !strings.Contains(errOut2, "unknown flag --refresh-only (Terraform's -refresh-only: kyku refresh reads every object and records what drifted)") {
		t.Errorf("plan -refresh-only: exit %d, want 1 and kyku refresh named\n%s", code2, errOut2)
	}
	code2, _, errOut2 = k.run("", "plan", "-c", tf, "-state=other.tfstate")
	if code2 != 1 || !strings.Contains(errOut2, "unknown flag --state (Terraform's -state: --state-dir DIR keeps the state") {
		t.Errorf("plan -state: exit %d, want 1 and --state-dir named\n%s", code2, errOut2)
	}
}
