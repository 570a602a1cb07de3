package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestCLIConfigFilesystemMirror: with no KYKU_PLUGIN_MIRROR, the CLI
// configuration's provider_installation { filesystem_mirror } (a CI
// image's TF_CLI_CONFIG_FILE) is where kyku init and plan install
// providers from, as OpenTofu installs them; one Kyku does not follow (a
// network mirror) is refused before anything is fetched.
func TestCLIConfigFilesystemMirror(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the test providers")
	}
	k := newKyku(t, "")
	tf := fwtestRoot(t, k, `resource "fwtest_item" "a" {
  name = "a"
}
`)
	mirror := tfplugintest.Mirror(t, t.TempDir(), tfplugintest.Framework)
	rc := filepath.Join(k.dir, "tofurc")
	if err := os.WriteFile(rc, []byte("provider_installation {\n  filesystem_mirror {\n    path = \""+mirror+"\"\n  }\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	delete(k.env, "KYKU_PLUGIN_MIRROR")
	k.env["TF_CLI_CONFIG_FILE"] = rc
	k.ok("init", "-c", tf)
	if out := k.ok("plan", "-c", tf); !strings.Contains(out, "fwtest_item.a") {
		t.Errorf("plan:\n%s", out)
	}

	if err := os.WriteFile(rc, []byte("provider_installation {\n  network_mirror {\n    url = \"https://mirror.example/\"\n  }\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := k.run("", "plan", "-c", tf)
	if code == 0 || !strings.Contains(out+errOut, rc+":1: provider_installation network_mirror: Kyku installs providers from one filesystem_mirror") {
		t.Errorf("plan with a network mirror: exit %d, want it refused\n%s%s", code, out, errOut)
	}

	// A configuration without Terraform providers installs none: the
	// block does not stop it.
	yaml := newKyku(t, "provider: sim\nresources:\n  web: { type: SshKey, properties: { publicKey: k } }\n")
	yaml.env["TF_CLI_CONFIG_FILE"] = rc
	if out := yaml.ok("plan"); !strings.Contains(out, "web") {
		t.Errorf("plan of a kyku.yaml without Terraform providers:\n%s", out)
	}
}
