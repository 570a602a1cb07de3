package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBuildGraph(t *testing.T) {
	cfg := mustParse(t, `resources:
  vpc:
    type: Vpc
    properties: { cidr: 10.0.0.0/16 }
  admin:
    type: Vm
    properties: { image: i }
  sg:
    type: SecurityGroup
    properties:
      network: ${vpc}
      ingress:                                   # a reference nested in a list of maps
        - { port: 22, cidr: "${admin.privateIp}/32" }
  key:
    type: SshKey
    properties: { publicKey: k }
  web:
    type: Vm
    dependsOn: [ key ]                           # explicit edge
    properties:
      image: i
      securityGroups: [ "${sg}" ]
      tags: { peer: "${admin.publicIp}" }
`)
	g := BuildGraph(cfg)
	tests := []struct {
		node string
		want []string
	}{
		{"sg", []string{"admin", "vpc"}},
		{"web", []string{"admin", "key", "sg"}},
		{"vpc", []string{}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, g.Deps(tt.node)); diff != "" {
			t.Errorf("deps of %s (-want +got):\n%s", tt.node, diff)
		}
	}
	levels, err := g.Levels()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"vpc": 0, "admin": 0, "key": 0, "sg": 1, "web": 2}
	if diff := cmp.Diff(want, levels); diff != "" {
		t.Errorf("levels (-want +got):\n%s", diff)
	}
	if g.Len() != len(cfg.Resources) {
		t.Errorf("graph has %d nodes, config %d resources", g.Len(), len(cfg.Resources))
	}
}

// A Database placed in a Vpc with auto-subnets waits for them: the cloud
// builds its subnet group from them.
func TestBuildGraphPlacedResourcesWaitForAutoSubnets(t *testing.T) {
	cfg, err := Parse([]File{{Name: "k.yaml", Data: []byte(`provider: sim
resources:
  net:
    type: Vpc
    properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 1 }
  db:
    type: Database
    properties: { network: "${net}", engine: postgres }
  sg:
    type: SecurityGroup
    properties: { network: "${net}" }
`)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := InjectAutoSubnets(cfg, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	g := BuildGraph(cfg)
	if got, want := g.Deps("db"), []string{"net", "net-subnet-private-0", "net-subnet-public-0"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("db depends on %v, want %v", got, want)
	}
	if got := g.Deps("sg"); strings.Join(got, ",") != "net" {
		t.Errorf("sg depends on %v, want only net", got)
	}
}
