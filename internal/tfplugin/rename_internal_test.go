package tfplugin

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfschema"
)

// TestRenameTypes: a provider configured under a local name that is not
// its types' prefix has them renamed to it, both ways; one whose types
// already carry the name, or share no prefix, is left as it is.
func TestRenameTypes(t *testing.T) {
	schemaOf := func(resources, data []string) *tfschema.ProviderSchema {
		s := &tfschema.ProviderSchema{ResourceTypes: map[string]*tfschema.Schema{}, DataSources: map[string]*tfschema.Schema{}}
		for _, n := range resources {
			s.ResourceTypes[n] = &tfschema.Schema{}
		}
		for _, n := range data {
			s.DataSources[n] = &tfschema.Schema{}
		}
		return s
	}
	for _, tc := range []struct {
		local                   string
		resources, data         []string
		own                     string
		wantResources, wantData []string
	}{
		{"west", []string{"aws_s3_bucket", "aws_vpc"}, []string{"aws_ami"}, "aws", []string{"west_s3_bucket", "west_vpc"}, []string{"west_ami"}},
		{"aws", []string{"aws_s3_bucket"}, []string{"aws_ami"}, "", []string{"aws_s3_bucket"}, []string{"aws_ami"}},
		{"", []string{"aws_s3_bucket"}, nil, "", []string{"aws_s3_bucket"}, nil},
		// hashicorp/google-beta's types are google_…
		{"google-beta", []string{"google_compute_instance"}, nil, "google", []string{"google-beta_compute_instance"}, nil},
		// no one prefix: the provider's own names stay
		{"west", []string{"aws_vpc", "awscc_vpc"}, nil, "", []string{"aws_vpc", "awscc_vpc"}, nil},
	} {
		s := schemaOf(tc.resources, tc.data)
		own := renameTypes(s, tc.local)
		if own != tc.own {
			t.Errorf("%s over %v: own prefix %q, want %q", tc.local, tc.resources, own, tc.own)
		}
		if d := cmp.Diff(tc.wantResources, slices.Sorted(maps.Keys(s.ResourceTypes))); d != "" {
			t.Errorf("%s: resource types (-want +got):\n%s", tc.local, d)
		}
		if d := cmp.Diff(tc.wantData, slices.Sorted(maps.Keys(s.DataSources))); d != "" {
			t.Errorf("%s: data sources (-want +got):\n%s", tc.local, d)
		}
		p := &Provider{cfg: Config{LocalName: tc.local}, ownPrefix: own}
		for i, name := range tc.wantResources {
			if got := p.wireType(name); got != tc.resources[i] {
				t.Errorf("wireType(%s) = %s, want %s", name, got, tc.resources[i])
			}
			if got := p.localType(tc.resources[i]); got != name {
				t.Errorf("localType(%s) = %s, want %s", tc.resources[i], got, name)
			}
		}
	}
}
