package cli_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/cli"
)

// subcommandHelps are the helps of subcommands that have their own.
var subcommandHelps = map[string][][]string{
	"providers": {{"providers", "lock", "--help"}, {"providers", "mirror", "--help"}},
}

// TestCLIReference: docs/cli.md is what the commands' declarations say:
// kyku --help, then every command's --help (its synopsis, what it does,
// every flag with its placeholder and default). A command or flag added,
// removed or reworded without regenerating the page fails here; go test
// ./internal/cli -run TestCLIReference -update rewrites it.
func TestCLIReference(t *testing.T) {
	page, err := filepath.Abs(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // the helps read nothing; nothing is written
	var doc strings.Builder
	doc.WriteString("# Command-line reference\n\n")
	doc.WriteString("<!-- Generated from the commands' declarations by TestCLIReference (internal/cli/clidoc_test.go); do not edit.\n")
	doc.WriteString("     After changing a command or a flag: go test ./internal/cli -run TestCLIReference -update -->\n\n")
	doc.WriteString("Every command, its synopsis, what it does and its flags with their defaults, as `kyku <command> --help` prints them.\n")
	doc.WriteString("Flags follow the command (`kyku plan --out plan.json`); `-c` and `-e` are short for `--config` and `--env`.\n")
	doc.WriteString("The configuration file's keys are in [configuration.md](configuration.md).\n\n")
	doc.WriteString("| Command | What it does |\n|---|---|\n")
	var names []string
	for _, c := range cli.Commands() {
		names = append(names, c.Name)
		synopsis := "kyku " + c.Name
		if c.Args != "" {
			synopsis += " " + c.Args
		}
		what := c.Summary
		if i := strings.Index(what, ". "); i >= 0 {
			what = what[:i+1]
		}
		doc.WriteString("| [`" + strings.ReplaceAll(synopsis, "|", `\|`) + "`](#kyku-" + c.Name + ") | " + strings.ReplaceAll(what, "|", `\|`) + " |\n")
	}
	code, out, errOut := runBare(t, cli.Env{}, "--help")
	if code != 0 || errOut != "" {
		t.Fatalf("kyku --help: exit %d, stderr %q", code, errOut)
	}
	doc.WriteString("\n## kyku --help\n\n```text\n" + out + "```\n")
	for _, name := range names {
		helps := append([][]string{{name, "--help"}}, subcommandHelps[name]...)
		doc.WriteString("\n## kyku " + name + "\n")
		for _, args := range helps {
			code, out, errOut := runBare(t, cli.Env{}, args...)
			if code != 0 || errOut != "" || !strings.HasPrefix(out, "Usage: kyku "+name) {
				t.Errorf("kyku %s: exit %d, stderr %q, stdout %.80q", strings.Join(args, " "), code, errOut, out)
			}
			if parts := strings.SplitN(out, "\n\n", 3); len(parts) < 2 || strings.TrimSpace(parts[1]) == "" {
				t.Errorf("kyku %s: the help does not say what the command does:\n%s", strings.Join(args, " "), out)
			}
			if len(args) > 2 {
				doc.WriteString("\n### kyku " + strings.Join(args[:len(args)-1], " ") + "\n")
			}
			doc.WriteString("\n```text\n" + out + "```\n")
		}
	}
	checkDoc(t, page, doc.String())
}

// checkDoc compares a generated page of docs/ with got, or writes it with
// -update (the flag package golden registers).
func checkDoc(t *testing.T, path, got string) {
	t.Helper()
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s (run with -update to write it): %v", path, err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s is stale (-want +got); regenerate it: go test ./internal/cli -run TestCLIReference -update\n%s", path, diff)
	}
}
