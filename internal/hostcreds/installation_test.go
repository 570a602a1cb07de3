package hostcreds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProviderInstallation: the CLI configuration's provider_installation
// of one filesystem_mirror gives its path, of direct alone the
// registries, none the registries; any other (a network mirror, include
// or exclude, several methods, two blocks) is refused in one line naming
// the file and line, rather than installing from elsewhere than it says.
func TestProviderInstallation(t *testing.T) {
	for _, c := range []struct {
		name, text, mirror, refused string
	}{
		{"none", `credentials "app.example" { token = "x" }`, "", ""},
		{"a filesystem mirror", "provider_installation {\n  filesystem_mirror {\n    path = \"/srv/mirror\"\n  }\n}\n", "/srv/mirror", ""},
		{"direct", "provider_installation {\n  direct {}\n}\n", "", ""},
		{"a network mirror", "provider_installation {\n  network_mirror {\n    url = \"https://m.example/\"\n  }\n}\n", "", "rc:1: provider_installation network_mirror: Kyku installs providers from one filesystem_mirror"},
		{"include", "provider_installation {\n  filesystem_mirror {\n    path    = \"/m\"\n    include = [\"example.com/*/*\"]\n  }\n}\n", "", "provider_installation filesystem_mirror has include"},
		{"a mirror and direct", "provider_installation {\n  filesystem_mirror {\n    path = \"/m\"\n  }\n  direct {\n    exclude = [\"hashicorp/*\"]\n  }\n}\n", "", "has 2 installation methods"},
		{"two blocks", "provider_installation {\n  direct {}\n}\nprovider_installation {\n  direct {}\n}\n", "", "rc:4: a second provider_installation block (the first at"},
		{"a path not a string", "provider_installation {\n  filesystem_mirror {\n    path = 3\n  }\n}\n", "", "filesystem_mirror's path must be a directory's name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "rc")
			if err := os.WriteFile(file, []byte(c.text), 0o600); err != nil {
				t.Fatal(err)
			}
			getenv := func(k string) string {
				if k == "TF_CLI_CONFIG_FILE" {
					return file
				}
				return ""
			}
			got, err := ProviderInstallation(Sources{Getenv: getenv})
			switch {
			case c.refused != "":
				if err == nil || !strings.Contains(err.Error(), c.refused) {
					t.Errorf("err = %v, want it refused with %q", err, c.refused)
				}
			case err != nil:
				t.Errorf("err = %v", err)
			case got.Mirror != c.mirror:
				t.Errorf("mirror %q, want %q", got.Mirror, c.mirror)
			}
		})
	}
}
