package tfstate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfstate"
)

// TestBridgeDependencies: Kyku's dependencies name resource instances;
// OpenTofu's name resources, without instance keys (a key there and tofu
// refuses the whole state). Dependencies Kyku gives per instance that
// are the ones OpenTofu wrote keep their bytes; new ones are written as
// OpenTofu writes them.
func TestBridgeDependencies(t *testing.T) {
	tests := []struct {
		name string
		deps []string
		want []string
	}{
		{"the instances of the one recorded", []string{`random_id.c[1]`, `random_id.c[2]`}, []string{"random_id.c"}},
		{"instances in modules", []string{`module.net["a"].module.sub[0].null_resource.x["k.1"]`, `random_id.c[0]`},
			[]string{"module.net.module.sub.null_resource.x", "random_id.c"}},
		{"a data source", []string{`data.null_data_source.d`}, []string{"data.null_data_source.d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, b, st := bridged(t, "testdata/recorded/counts.tfstate", tfstate.BridgeOptions{})
			st.Resources[`null_resource.m["a"]`].Dependencies = tt.deps
			f, _, err := b.File(st)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range f.Resources {
				if r.Type == "null_resource" {
					got = r.Instances[0].Dependencies
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("dependencies (-want +got):\n%s", d)
			}
			if tt.want[0] == "random_id.c" && len(tt.want) == 1 {
				out, err := tfstate.Encode(f, tfstate.Indented)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(string(data), string(out)); d != "" {
					t.Errorf("the state changed (-recorded +written):\n%s", d)
				}
			}
		})
	}
}
