package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/hetzner"
	"github.com/kyku/action/internal/provider/sim"
)

// TestValidateAsksTheProvider: `kyku validate` reports what the configured
// provider cannot carry (a Database on hetzner) at the resource's
// file:line:col, without calling the cloud.
func TestValidateAsksTheProvider(t *testing.T) {
	dir := t.TempDir()
	conf := `provider: { name: hetzner, location: fsn1, endpoint: "http://127.0.0.1:1/v1" }
resources:
  net:
    type: Vpc
    properties: { cidr: 10.0.0.0/16 }
  app-db:
    type: Database
    properties: { network: "${net}", engine: postgres }
`
	path := filepath.Join(dir, "kyku.yaml")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := cli.Run(context.Background(), []string{"validate", "-c", path}, cli.Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut,
		Getenv:    func(k string) string { return map[string]string{"HCLOUD_TOKEN": "t0k", "NO_COLOR": "1"}[k] },
		Providers: provider.Registry{"sim": sim.Factory, "hetzner": hetzner.New},
		Hostname:  "testhost", PID: 1,
	})
	if code == 0 {
		t.Fatalf("validate accepted a Database on hetzner:\n%s", out.String())
	}
	if !regexp.MustCompile(`kyku\.yaml:6:3: resource "app-db" \(Database\): hetzner has no managed databases`).MatchString(errOut.String()) {
		t.Errorf("validate stderr = %q; want the refusal at app-db's position", errOut.String())
	}
}
