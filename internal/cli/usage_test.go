package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/cli/clipolicy"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/workspace/awsstore"
)

// runBare runs the CLI with nothing but a registry that fails the test if
// any provider is built.
func runBare(t *testing.T, env cli.Env, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env.Stdout, env.Stderr = &out, &errOut
	if env.Providers == nil {
		env.Providers = provider.Registry{"sim": func(context.Context, map[string]string, func(string) string) (provider.Provider, error) {
			t.Errorf("kyku %v built a provider", args)
			return nil, os.ErrInvalid
		}}
	}
	if env.AWS == nil {
		env.AWS, env.Policies = awsstore.Store{}, clipolicy.Load
	}
	code := cli.Run(t.Context(), args, env)
	return code, out.String(), errOut.String()
}

// TestUnknownCommandSuggests: a typo of a command is one line on stderr
// naming the closest command, not the whole usage; a flag before the
// command says where flags go; a Terraform command Kyku lacks, what to
// use.
func TestUnknownCommandSuggests(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"plann", `kyku: unknown command "plann" (did you mean "plan"?); run "kyku --help" for the list`},
		{"aply", `kyku: unknown command "aply" (did you mean "apply"?); run "kyku --help" for the list`},
		{"frobnicate", `kyku: unknown command "frobnicate"; run "kyku --help" for the list`},
		{"-c", `kyku: -c before the command: flags follow it (kyku plan -c …); run "kyku --help" for the list`},
		// Terraform's commands Kyku lacks say what it has instead.
		{"taint", `kyku: unknown command "taint" (Terraform's taint: kyku apply --replace ADDRESS, which OpenTofu recommends over taint); run "kyku --help" for the list`},
		{"workspace", `kyku: unknown command "workspace" (Terraform's workspace: a workspace is -e NAME (or KYKU_ENV, TF_WORKSPACE); its state is made by its first apply); run "kyku --help" for the list`},
	} {
		code, out, errOut := runBare(t, cli.Env{}, tc.arg, "x")
		if code != 1 || out != "" || errOut != tc.want+"\n" {
			t.Errorf("kyku %s: exit %d, stdout %q, stderr %q; want exit 1 and only\n%s", tc.arg, code, out, errOut, tc.want)
		}
	}
}

// TestFlagErrorsPrintedOnce: an unknown flag is one line on stderr, with
// the closest known flag in the help's own syntax, and nothing else (no
// usage dump, no second copy); so is a bad value. Nothing runs.
func TestFlagErrorsPrintedOnce(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--outt", "p.json"}, `kyku: unknown flag --outt (did you mean --out?); run "kyku plan --help" for its flags`},
		{[]string{"plan", "-outt=p.json"}, `kyku: unknown flag --outt (did you mean --out?); run "kyku plan --help" for its flags`},
		{[]string{"apply", "--auto-aprove"}, `kyku: unknown flag --auto-aprove (did you mean --auto-approve?); run "kyku apply --help" for its flags`},
		{[]string{"plan", "-C", "x"}, `kyku: unknown flag -C (did you mean -c?); run "kyku plan --help" for its flags`},
		{[]string{"output", "--bogus"}, `kyku: unknown flag --bogus; run "kyku output --help" for its flags`},
		// A value that starts with a dash is the flag's value, not a flag:
		// the first unknown flag is the one after it.
		{[]string{"plan", "--var", "x=-y", "--target", "-web", "--nope"}, `kyku: unknown flag --nope; run "kyku plan --help" for its flags`},
		{[]string{"plan", "--parallelism", "many"}, `kyku: invalid value "many" for flag -parallelism: not a whole number; run "kyku plan --help" for its flags`},
		// 0 or less is refused, not taken as the default.
		{[]string{"apply", "--parallelism", "0"}, `kyku: invalid value "0" for flag -parallelism: must be at least 1; run "kyku apply --help" for its flags`},
		{[]string{"plan", "--parallelism=-4"}, `kyku: invalid value "-4" for flag -parallelism: must be at least 1; run "kyku plan --help" for its flags`},
		{[]string{"refresh", "--parallelism", "-1"}, `kyku: invalid value "-1" for flag -parallelism: must be at least 1; run "kyku refresh --help" for its flags`},
	} {
		code, out, errOut := runBare(t, cli.Env{}, append(tc.args, "--state-dir", filepath.Join(dir, "state"))...)
		if code != 1 || out != "" || errOut != tc.want+"\n" {
			t.Errorf("kyku %v: exit %d, stdout %q, stderr %q; want exit 1 and only\n%s", tc.args, code, out, errOut, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused command wrote %v", entries)
	}
}

// TestPositionalArgumentsRefused: commands that take none refuse a
// positional argument instead of ignoring it and running on ./kyku.yaml;
// a path says how to give it (-c).
func TestPositionalArgumentsRefused(t *testing.T) {
	dir := t.TempDir()
	infra := filepath.Join(dir, "infra")
	if err := os.MkdirAll(infra, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"validate", "plan", "apply", "destroy", "refresh", "graph"} {
		code, out, errOut := runBare(t, cli.Env{}, cmd, infra, "--state-dir", filepath.Join(dir, "state"))
		takes := "no arguments"
		if cmd == "apply" {
			takes = "no arguments but a saved plan's file"
		}
		want := "kyku: " + cmd + ` takes ` + takes + `, got "` + infra + `"; to use the configuration there, run: kyku ` + cmd + " -c " + infra + "\n"
		if code != 1 || out != "" || errOut != want {
			t.Errorf("kyku %s DIR: exit %d, stdout %q, stderr %q; want %q", cmd, code, out, errOut, want)
		}
	}
	// terraform apply PLANFILE: taken as --plan PLANFILE (this one is no
	// plan: refused as one), once.
	saved := filepath.Join(dir, "infra", "plan.out")
	if err := os.WriteFile(saved, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, planErr := runBare(t, cli.Env{}, "apply", "--plan", saved)
	if code2, _, errOut := runBare(t, cli.Env{}, "apply", saved); code != 1 || code2 != 1 || errOut != planErr {
		t.Errorf("kyku apply PLANFILE: exit %d, stderr %q; want what --plan PLANFILE says, %q", code2, errOut, planErr)
	}
	if code, _, errOut := runBare(t, cli.Env{}, "apply", "--plan", saved, saved); code != 1 || !strings.Contains(errOut, "a saved plan given twice") {
		t.Errorf("kyku apply --plan PLANFILE PLANFILE: exit %d, stderr %q; want refused", code, errOut)
	}
	if err := os.Remove(saved); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runBare(t, cli.Env{}, "plan", "prod")
	if want := `kyku: plan takes no arguments, got "prod"; run "kyku plan --help" for its flags` + "\n"; code != 1 || errOut != want {
		t.Errorf("kyku plan prod: exit %d, stderr %q; want %q", code, errOut, want)
	}
	if code, _, errOut := runBare(t, cli.Env{}, "version", "extra"); code != 1 || !strings.Contains(errOut, `version takes no arguments, got "extra"`) {
		t.Errorf("kyku version extra: exit %d, stderr %q", code, errOut)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("refused commands wrote %v", entries)
	}
}

// TestHelpShowsGNUFlags: a command's help lists its flags as --flag (with
// the one-letter alias beside the long form and a placeholder for the
// value), on stdout, exit 0; kyku help CMD is the same.
func TestHelpShowsGNUFlags(t *testing.T) {
	code, out, errOut := runBare(t, cli.Env{}, "plan", "--help")
	if code != 0 || errOut != "" {
		t.Fatalf("plan --help: exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"Usage: kyku plan [flags]\n",
		"\n  -c, --config PATH ", "\n  -e, --env ENV ", "\n      --out FILE ", "\n      --detailed-exitcode ",
		"\n      --var NAME=VALUE ", "\n      --lock-timeout DURATION ", "(default 30s)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan --help lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "-") && !strings.HasPrefix(strings.TrimSpace(line), "--") && !strings.HasPrefix(strings.TrimSpace(line), "-c, --") && !strings.HasPrefix(strings.TrimSpace(line), "-e, --") {
			t.Errorf("a flag shown with a single dash: %q", line)
		}
		if strings.Contains(line, "same as -c") || strings.Contains(line, "same as -e") {
			t.Errorf("an alias listed on its own line: %q", line)
		}
	}
	if _, viaHelp, _ := runBare(t, cli.Env{}, "help", "plan"); viaHelp != out {
		t.Errorf("kyku help plan differs from kyku plan --help:\n%s", viaHelp)
	}
	if code, out, _ := runBare(t, cli.Env{}, "output", "-h"); code != 0 || !strings.HasPrefix(out, "Usage: kyku output [flags] [NAME]\n") {
		t.Errorf("output -h: exit %d\n%s", code, out)
	}
	if code, out, _ := runBare(t, cli.Env{}, "--help"); code != 0 || !strings.Contains(out, "  version ") || !strings.Contains(out, "-c, --config PATH") {
		t.Errorf("--help: exit %d\n%s", code, out)
	}
}

// TestVersion: kyku version, --version and -v print the version, the
// commit and the Go version, from a release build's override or from what
// Go recorded, and read nothing: no configuration (there is none here),
// no backend, no provider.
func TestVersion(t *testing.T) {
	t.Chdir(t.TempDir())
	env := cli.Env{Version: cli.Version{Version: "v1.2.3", Commit: "0123456789abcdef0123456789abcdef01234567"}}
	want := "kyku v1.2.3\ncommit 0123456789abcdef0123456789abcdef01234567\n" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}, {"-v"}} {
		code, out, errOut := runBare(t, env, args...)
		if code != 0 || out != want || errOut != "" {
			t.Errorf("kyku %v: exit %d, stdout %q, stderr %q; want %q", args, code, out, errOut, want)
		}
	}
	env.Version.Modified = true
	if _, out, _ := runBare(t, env, "version"); !strings.Contains(out, "commit 0123456789abcdef0123456789abcdef01234567 (modified: built with uncommitted changes)\n") {
		t.Errorf("a modified build does not say so:\n%s", out)
	}
	code, out, _ := runBare(t, cli.Env{}, "version", "--json")
	if code != 0 || !strings.Contains(out, `"go": "`+runtime.Version()+`"`) || !strings.Contains(out, `"version": "`) {
		t.Errorf("version --json: exit %d\n%s", code, out)
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("kyku version wrote %v", entries)
	}
}

// TestApplyPlanFileAsTerraformGivesIt: kyku apply PLANFILE applies the
// saved plan, as terraform apply PLANFILE and kyku apply --plan do.
func TestApplyPlanFileAsTerraformGivesIt(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "a" {
  input = "x"
}
`})
	saved := filepath.Join(k.dir, "tfplan")
	if code, out, errOut := k.run("", "plan", "-c", tf, "-out="+saved); code != 0 {
		t.Fatalf("plan -out: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := k.run("", "apply", "-c", tf, "-input=false", saved)
	if code != 0 || !strings.Contains(out, "Apply complete: 1 succeeded") {
		t.Errorf("kyku apply PLANFILE: exit %d, want the saved plan applied\n%s%s", code, out, errOut)
	}
}
