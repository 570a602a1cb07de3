package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestSandboxFlag: kyku runs a person's providers as their own programs,
// which reach everything they can (every escape fwtest_escape tries
// succeeds); with --sandbox, none does (the metadata stand-in only when
// kyku runs as root, which a network of the provider's own needs), and
// the provider keeps the environment, the files of --sandbox-file and
// its network. --sandbox-file alone is refused.
func TestSandboxFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a provider")
	}
	tfplugintest.RequireSandbox(t, &tfplugin.Sandbox{Network: tfplugin.NetworkBest})
	e := tfplugintest.NewEscapes(t)
	dir := t.TempDir()
	granted := filepath.Join(dir, "credentials")
	if err := os.WriteFile(granted, []byte("granted-file-content"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kyku.yaml"), []byte(`providers:
  fwtest: { source: kyku/fwtest, config: { dir: /nonexistent } }
data:
  look: { type: fwtest_escape, properties: `+e.YAML([]string{"GRANTED_TOKEN"}, granted)+` }
resources:
  shown: { type: Vpc, properties: { cidr: 10.0.0.0/16, tags: { report: "${look.report}" } } }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"KYKU_SIM_DIR": filepath.Join(dir, "cloud"), "NO_COLOR": "1", "GRANTED_TOKEN": "granted-env-value",
		"KYKU_PLUGIN_MIRROR": tfplugintest.Mirror(t, t.TempDir(), tfplugintest.Framework), "KYKU_PROVIDER_DENY": "127.0.0.2"}
	run := func(args ...string) (int, string) {
		t.Helper()
		var out bytes.Buffer
		code := cli.Run(t.Context(), append(args, "-c", filepath.Join(dir, "kyku.yaml"), "--state-dir", filepath.Join(dir, ".kyku")), cli.Env{
			Stdout: &out, Stderr: &out, Getenv: func(k string) string { return env[k] },
			Environ: func() []string {
				var kv []string
				for k, v := range env {
					kv = append(kv, k+"="+v)
				}
				return kv
			},
			Providers: provider.Registry{"sim": sim.Factory}, Hostname: "testhost", PID: 4242,
		})
		return code, out.String()
	}
	if code, out := run("init"); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
	var metadata []string
	if os.Geteuid() != 0 {
		metadata = []string{"metadata connect", "metadata fetch"} // this machine's network as it is
	}
	for _, tc := range []struct {
		flags []string
		want  []string
	}{
		{[]string{"--sandbox", "--sandbox-file", granted}, metadata},
		{nil, tfplugintest.AllEscapes()},
	} {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			os.Remove(e.Outside)
			planFile := filepath.Join(t.TempDir(), "plan.json")
			if code, out := run(append([]string{"plan", "--out", planFile}, tc.flags...)...); code != 0 {
				t.Fatalf("plan: exit %d\n%s", code, out)
			}
			report := tfplugintest.ReportIn(t, planFile, "shown")
			if diff := cmp.Diff(tc.want, e.Succeeded(report)); diff != "" {
				t.Errorf("escapes that got through (-want +got):\n%s\n%s", diff, report)
			}
			for _, want := range []string{"env GRANTED_TOKEN: granted-env-value", "read " + granted + ": granted-file-content"} {
				if !strings.Contains(report, want) || !e.ReachedCloud(report) {
					t.Errorf("the provider lacks %q or its network:\n%s", want, report)
				}
			}
		})
	}
	if code, out := run("plan", "--sandbox-file", granted); code == 0 || !strings.Contains(out, "--sandbox-file without --sandbox") {
		t.Errorf("--sandbox-file alone: exit %d\n%s", code, out)
	}
}
