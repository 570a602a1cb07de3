package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/statemgr/tflayout/tofutest"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestTofuRoundTrip takes turns with a real tofu on one state (with
// KYKU_TEST_TOFU, a tofu 1.12 binary; skipped without): tofu apply →
// kyku plan says no changes and writes nothing → kyku apply a change →
// tofu plan says no changes → tofu apply another → kyku plan says no
// changes. The providers are the test providers, in a mirror both read.
func TestTofuRoundTrip(t *testing.T) {
	if os.Getenv("KYKU_TEST_TOFU") == "" {
		t.Skip("no tofu: set KYKU_TEST_TOFU (a tofu 1.12 binary)")
	}
	mirror := tfplugintest.Mirror(t, t.TempDir(), tfplugintest.Framework, tfplugintest.SDK)
	t.Setenv("KYKU_TEST_TOFU_MIRROR", mirror)
	main, err := os.ReadFile(filepath.Join("testdata", "tfroots", "estate", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	r := tofutest.New(t, string(main))
	if err := os.MkdirAll(filepath.Join(r.Dir, "cloud"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Run(0, "apply", "-auto-approve", "-input=false")
	k := newKyku(t, "")
	k.env["KYKU_PLUGIN_MIRROR"] = mirror
	kyku := func(want int, args ...string) string {
		t.Helper()
		code, out, errOut := k.run("", append(args, "-c", r.Dir)...)
		if code != want {
			t.Fatalf("kyku %v: exit %d, want %d\n%s%s", args, code, want, out, errOut)
		}
		return out
	}
	kyku(0, "init")
	state := filepath.Join(r.Dir, "terraform.tfstate")
	before, _ := os.ReadFile(state)
	if out := kyku(0, "plan", "--detailed-exitcode"); !strings.Contains(out, "No changes.") {
		t.Errorf("kyku plan after tofu apply:\n%s", out)
	}
	if after, _ := os.ReadFile(state); string(after) != string(before) {
		t.Error("kyku plan wrote the state")
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".terraform.tfstate.lock.info")); err == nil {
		t.Error("kyku plan left a lock behind")
	}
	kyku(0, "apply", "--auto-approve", "--var", "value=v2")
	r.Run(0, "plan", "-detailed-exitcode", "-input=false", "-var", "value=v2")
	r.Run(0, "apply", "-auto-approve", "-input=false", "-var", "value=v3")
	if out := kyku(0, "plan", "--detailed-exitcode", "--var", "value=v3"); !strings.Contains(out, "No changes.") {
		t.Errorf("kyku plan after tofu apply again:\n%s", out)
	}
}
