package cli_test

import (
	"bytes"
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
	code := cli.Run(t.Context(), []string{"validate", "-c", path}, cli.Env{
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

// TestValidateIsStrictOnTheSim: `kyku validate` asks the sim, as a strict
// cloud, about every value — host bits, a subnet outside its VPC, a port
// out of range, a CIDR that is none, a zone, a size and an image it does
// not have, negative storage — each at its file:line:col, all at once,
// and writes nothing: neither state nor the simulated cloud.
func TestValidateIsStrictOnTheSim(t *testing.T) {
	dir := t.TempDir()
	conf := `provider: { name: sim, dir: sim-cloud }
backend: { type: local, path: state }
resources:
  net:
    type: Vpc
    properties: { cidr: 10.0.1.0/16 }
  good-net:
    type: Vpc
    properties: { cidr: 10.0.0.0/16 }
  outside:
    type: Subnet
    properties: { network: "${good-net}", cidr: 10.9.0.0/24, zone: mars-1 }
  sg:
    type: SecurityGroup
    properties:
      network: "${good-net}"
      ingress:
        - { port: 70000, cidr: 0.0.0.0/0 }
        - { port: 22, cidr: everywhere }
  web:
    type: Vm
    properties: { size: gigantic, image: windows-95 }
  db:
    type: Database
    properties: { engine: postgres, storageGb: -10 }
`
	path := filepath.Join(dir, "kyku.yaml")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := cli.Run(t.Context(), []string{"validate", "-c", path}, cli.Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut,
		Getenv: func(k string) string {
			return map[string]string{"NO_COLOR": "1", "KYKU_SIM_DIR": filepath.Join(dir, "sim-cloud")}[k]
		},
		Providers: provider.Registry{"sim": sim.Factory},
		Hostname:  "testhost", PID: 1,
	})
	if code == 0 {
		t.Fatalf("validate accepted it:\n%s", out.String())
	}
	for _, want := range []string{
		`kyku.yaml:6:19: resource "net" (Vpc): property "cidr": "10.0.1.0/16" has host bits set: the network is 10.0.0.0/16`,
		`kyku.yaml:12:43: resource "outside" (Subnet): property "cidr": 10.9.0.0/24 is not inside the network's range 10.0.0.0/16 (of Vpc "good-net")`,
		`kyku.yaml:12:62: resource "outside" (Subnet): property "zone": the sim offers zones sim-a, sim-b, sim-c, not "mars-1"`,
		`kyku.yaml:18:13: resource "sg" (SecurityGroup): property "ingress[0].port": port 70000 is not between 1 and 65535`,
		`kyku.yaml:19:23: resource "sg" (SecurityGroup): property "ingress[1].cidr": "everywhere" is not an address range in CIDR notation`,
		`kyku.yaml:22:19: resource "web" (Vm): property "size": the sim has sizes small, medium, large, not "gigantic"`,
		`kyku.yaml:22:35: resource "web" (Vm): property "image": the sim knows images`,
		`kyku.yaml:25:37: resource "db" (Database): property "storageGb": storage must be 1 to 65536 GB, not -10`,
	} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("validate stderr lacks\n  %s\ngot:\n%s", want, errOut.String())
		}
	}
	for _, d := range []string{"state", "sim-cloud", ".kyku"} {
		if _, err := os.Stat(filepath.Join(dir, d)); err == nil {
			t.Errorf("validate wrote %s", d)
		}
	}
}
