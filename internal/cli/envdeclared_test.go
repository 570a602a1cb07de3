package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUndeclaredEnvironmentRefused: -e prod (or KYKU_ENV=prod) on a
// configuration that declares no environments would plan a second estate
// of everything beside the default one: every command refuses it in one
// line naming the flag and the configuration, and writes nothing. Once
// the configuration declares prod, the same commands run.
func TestUndeclaredEnvironmentRefused(t *testing.T) {
	k := newKyku(t, sized)
	if code, _, errOut := k.run("", "apply", "--auto-approve"); code != 0 {
		t.Fatal(errOut)
	}
	config := filepath.Join(k.dir, "kyku.yaml")
	commands := [][]string{
		{"validate"}, {"plan"}, {"apply", "--auto-approve"}, {"destroy", "--auto-approve"}, {"refresh"},
		{"output"}, {"graph"}, {"state", "list"}, {"import", "net", "10000001"}, {"init"},
	}
	for _, args := range commands {
		for _, viaVar := range []bool{false, true} {
			given, without := "-e prod", "leave out -e"
			run := append([]string{}, args...)
			if viaVar {
				given, without = "KYKU_ENV=prod", "unset KYKU_ENV"
				k.env["KYKU_ENV"] = "prod"
			} else {
				run = append(run, "-e", "prod")
			}
			t.Run(strings.Join(args, " ")+" "+given, func(t *testing.T) {
				before := files(t, k.dir)
				code, out, errOut := k.run("yes\n", run...)
				want := "kyku: " + given + ": " + config + " declares no environments (there is only the default one): declare prod under environments: there, or " + without + "\n"
				if code != 1 || out != "" || errOut != want {
					t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and only\n%s", code, out, errOut, want)
				}
				if diff := cmp.Diff(before, files(t, k.dir)); diff != "" {
					t.Errorf("the refused command wrote (-before +after):\n%s", diff)
				}
			})
			delete(k.env, "KYKU_ENV")
		}
	}
	k.write(sized + "environments:\n  prod: {}\n")
	saved := filepath.Join(k.dir, "prod.json")
	for _, args := range [][]string{{"validate", "-e", "prod"}, {"apply", "--auto-approve", "-e", "prod"}, {"plan", "-e", "prod", "--out", saved}} {
		if code, out, errOut := k.run("", args...); code != 0 {
			t.Errorf("kyku %v with prod declared: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	// A plan saved for prod, applied with a configuration that declares
	// no environments: the plan is named as where prod came from.
	k.write(sized)
	code, _, errOut := k.run("", "apply", "--plan", saved)
	want := "kyku: " + saved + " (planned for environment prod): " + config +
		" declares no environments (there is only the default one): declare prod under environments: there, or plan again without -e\n"
	if code != 1 || errOut != want {
		t.Errorf("apply --plan: exit %d, stderr %q; want\n%s", code, errOut, want)
	}
}
