// Package tofutest runs a real tofu in tests of Terraform-layout backends:
// KYKU_TEST_TOFU names the binary (1.12.x), KYKU_TEST_TOFU_MIRROR a
// filesystem mirror of the providers the tests' configurations use
// (hashicorp/random, null, time). Without them a test that needs tofu is
// skipped: CI has no tofu.
package tofutest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Root is a root module in a directory of its own, initialised.
type Root struct {
	t   testing.TB
	bin string
	Dir string
	env []string
}

// New writes config (main.tf) into a new directory, runs tofu init there
// with env added to tofu's environment, and returns the root; it skips t
// without tofu.
func New(t testing.TB, config string, env ...string) *Root {
	t.Helper()
	bin, mirror := os.Getenv("KYKU_TEST_TOFU"), os.Getenv("KYKU_TEST_TOFU_MIRROR")
	if bin == "" || mirror == "" {
		t.Skip("no tofu: set KYKU_TEST_TOFU (a tofu 1.12 binary) and KYKU_TEST_TOFU_MIRROR (its providers' filesystem mirror)")
	}
	dir := t.TempDir()
	rc := filepath.Join(dir, ".tofurc")
	write(t, rc, fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path = %q\n  }\n}\n", mirror))
	write(t, filepath.Join(dir, "main.tf"), config)
	base := append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	r := &Root{t: t, bin: bin, Dir: dir, env: append(base, env...)}
	r.Run(0, "init", "-input=false")
	return r
}

func write(t testing.TB, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Cmd is tofu args (and -no-color) in the root.
func (r *Root) Cmd(args ...string) *exec.Cmd {
	c := exec.Command(r.bin, append(args, "-no-color")...)
	c.Dir, c.Env = r.Dir, r.env
	return c
}

// Run runs tofu args, wants exit code want, and returns its output.
func (r *Root) Run(want int, args ...string) string {
	r.t.Helper()
	out, err := r.Cmd(args...).CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatalf("tofu %v: %v", args, err)
	}
	if code != want {
		r.t.Fatalf("tofu %v: exit %d, want %d:\n%s", args, code, want, out)
	}
	return string(out)
}
