package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestCarve(t *testing.T) {
	tests := []struct {
		cidr    string
		n       int
		want    []string // public 0..n-1, then private 0..n-1
		wantErr string
	}{
		{cidr: "10.0.0.0/16", n: 2, want: []string{"10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/24", "10.0.3.0/24"}},
		{cidr: "10.0.16.0/20", n: 3, want: []string{"10.0.16.0/24", "10.0.17.0/24", "10.0.18.0/24", "10.0.19.0/24", "10.0.20.0/24", "10.0.21.0/24"}},
		{cidr: "10.0.0.0/16", n: 1, want: []string{"10.0.0.0/24", "10.0.1.0/24"}},
		// smaller than /24 blocks when the VPC is small: /22 with 3 AZs → /25
		{cidr: "192.168.4.0/22", n: 3, want: []string{"192.168.4.0/25", "192.168.4.128/25", "192.168.5.0/25", "192.168.5.128/25", "192.168.6.0/25", "192.168.6.128/25"}},
		// host bits are masked off
		{cidr: "10.0.7.9/16", n: 1, want: []string{"10.0.0.0/24", "10.0.1.0/24"}},
		{cidr: "10.0.0.0/26", n: 2, want: []string{"10.0.0.0/28", "10.0.0.16/28", "10.0.0.32/28", "10.0.0.48/28"}},
		{cidr: "10.0.0.0/27", n: 2, wantErr: "10.0.0.0/27 is too small for 4 subnets (2 public + 2 private) of at least /28"},
		{cidr: "10.0.0.0/8", n: 17, wantErr: "distributeAcrossAzs must be between 0 and 16, got 17"},
		{cidr: "10.0.0/16", n: 1, wantErr: `invalid CIDR "10.0.0/16"`},
		{cidr: "fd00::/48", n: 1, wantErr: "need an IPv4 CIDR"},
	}
	for _, tt := range tests {
		t.Run(tt.cidr, func(t *testing.T) {
			got, err := carve("v", tt.cidr, tt.n)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var cidrs []string
			for _, s := range got {
				cidrs = append(cidrs, s.CIDR)
			}
			if diff := cmp.Diff(tt.want, cidrs); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestInjectAutoSubnets(t *testing.T) {
	cfg := mustParse(t, `resources:
  main-vpc:
    type: Vpc
    properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 3 }
  flat:
    type: Vpc
    properties: { cidr: 10.9.0.0/16 }
  web:
    type: Vm
    properties: { image: i, subnet: "${main-vpc-subnet-private-2}" }
`)
	zones := []string{"z-a", "z-b"}
	if err := InjectAutoSubnets(cfg, zones); err != nil {
		t.Fatal(err)
	}
	subnet := func(name, cidr, zone string, public bool) *Resource {
		return &Resource{Name: name, Type: "Subnet", AutoFrom: "main-vpc", Properties: map[string]any{
			"network": "${main-vpc}", "cidr": cidr, "zone": zone, "public": public}}
	}
	want := []*Resource{
		subnet("main-vpc-subnet-private-0", "10.0.3.0/24", "z-a", false),
		subnet("main-vpc-subnet-private-1", "10.0.4.0/24", "z-b", false),
		subnet("main-vpc-subnet-private-2", "10.0.5.0/24", "z-a", false), // zones round-robin
		subnet("main-vpc-subnet-public-0", "10.0.0.0/24", "z-a", true),
		subnet("main-vpc-subnet-public-1", "10.0.1.0/24", "z-b", true),
		subnet("main-vpc-subnet-public-2", "10.0.2.0/24", "z-a", true),
	}
	var got []*Resource
	for _, r := range cfg.Resources {
		if r.AutoFrom != "" {
			got = append(got, r)
		}
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Resource{}, "Pos", "PropPos"), textForm); diff != "" {
		t.Errorf("injected (-want +got):\n%s", diff)
	}
	if got[0].Pos != cfg.Resource("main-vpc").Pos {
		t.Errorf("auto-subnet position %v, want the Vpc's %v", got[0].Pos, cfg.Resource("main-vpc").Pos)
	}
	for i := 1; i < len(cfg.Resources); i++ {
		if cfg.Resources[i-1].Name >= cfg.Resources[i].Name {
			t.Fatalf("resources not sorted after injection at %d", i)
		}
	}

	// idempotent
	before := len(cfg.Resources)
	if err := InjectAutoSubnets(cfg, zones); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Resources) != before {
		t.Errorf("second injection changed the resource count %d → %d", before, len(cfg.Resources))
	}

	// the auto-subnets are in the graph, depending on their Vpc
	g := BuildGraph(cfg)
	if diff := cmp.Diff([]string{"main-vpc"}, g.Deps("main-vpc-subnet-private-2")); diff != "" {
		t.Errorf("subnet deps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"main-vpc-subnet-private-2"}, g.Deps("web")); diff != "" {
		t.Errorf("web deps (-want +got):\n%s", diff)
	}
}

func TestInjectAutoSubnetsErrors(t *testing.T) {
	cfg := mustParse(t, "resources:\n  v:\n    type: Vpc\n    properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 1 }\n")
	if err := InjectAutoSubnets(cfg, nil); err == nil || !strings.Contains(err.Error(), "listed no zones") {
		t.Errorf("no zones: err = %v", err)
	}
	// a user resource that took the name (Parse refuses this; a Config
	// built by hand might not)
	cfg.Add(&Resource{Name: "v-subnet-public-0", Type: "Subnet"})
	if err := InjectAutoSubnets(cfg, []string{"z"}); err == nil || !strings.Contains(err.Error(), `resource "v-subnet-public-0" already exists`) {
		t.Errorf("clash: err = %v", err)
	}
}

func TestAutoSubnetNamesAreReferenceable(t *testing.T) {
	// valid before injection: Parse knows the names and their type
	mustParse(t, `resources:
  v:
    type: Vpc
    properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 1 }
  vm:
    type: Vm
    dependsOn: [ v-subnet-private-0 ]
    properties: { image: i, subnet: "${v-subnet-public-0}", tags: { s: "${v-subnet-public-0.id}" } }
`)
}
